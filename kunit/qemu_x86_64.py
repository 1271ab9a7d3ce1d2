# SPDX-License-Identifier: GPL-2.0
#
# kunit.py's x86_64 QEMU settings (tools/testing/kunit/qemu_configs/
# x86_64.py) with QEMU's default firmware: under qboot.rom (-bios
# qboot.rom) Linux 7.3 prints nothing and hangs under TCG.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=[])
