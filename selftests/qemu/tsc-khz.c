// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: the host's TSC rate in kHz, the rate at which a QEMU TCG
 * guest's TSC runs, measured against CLOCK_MONOTONIC_RAW: the median of
 * five windows of 50 ms (scripts/lib.sh, tsc_early_khz).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	struct timespec w = { 0, 50000000 };
	double khz[5];
	int i;

	for (i = 0; i < 5; i++) {
		double t0 = now();
		unsigned long long c0 = __rdtsc();

		nanosleep(&w, NULL);
		khz[i] = (__rdtsc() - c0) / (now() - t0) / 1000;
	}
	qsort(khz, 5, sizeof(khz[0]), cmp);
	printf("%.0f\n", khz[2]);
	return 0;
}
