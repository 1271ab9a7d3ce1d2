// SPDX-License-Identifier: GPL-2.0
/*
 * icount_cal: the nanoseconds of CLOCK_MONOTONIC that a loop of a known
 * number of instructions takes.  Under QEMU's -icount shift=0 the guest's
 * clock advances one nanosecond per instruction, so that the ratio is 1
 * plus what the timer interrupts during the loop cost (make bench's
 * icount table, selftests/rdma_cm/icount.sh).
 *
 *   icount_cal [LOOPS]    (default 50000000)
 *
 * Each iteration of the loop is two instructions, dec and jnz.  Five
 * runs, one line each:
 *
 *   BENCH icount-cal run=I insns=N ns=T
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long loops = argc > 1 ? strtoul(argv[1], NULL, 0) : 50000000;
	int i;

	if (!loops)
		return 1;
	for (i = 1; i <= 5; i++) {
		unsigned long n = loops;
		long long t0 = now_ns(), t1;

		__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
		t1 = now_ns();
		printf("BENCH icount-cal run=%d insns=%lu ns=%lld\n", i,
		       2 * loops, t1 - t0);
	}
	return 0;
}
