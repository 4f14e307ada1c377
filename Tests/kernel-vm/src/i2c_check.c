/* libi2c check against i2c-stub: the HT16K33 traffic RoundClock sends, per chip.
 *
 * usage: i2c_check /dev/i2c-N ADDR...      (ADDR like 0x70)
 *
 * Per address: I2C_SLAVE, the HT16K33 set-up commands as SMBus send-byte (0x21 oscillator on,
 * 0x81 display on, 0xEF full brightness), a 16-byte I2C-block write of display RAM at 0x00
 * and a block read back. Also prints (informational, not checked) what a plain write() and
 * I2C_RDWR do on this adapter: i2c-stub is SMBus-only, so they fail with EOPNOTSUPP. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>

int main(int argc, char **argv) {
	if (argc < 3) { fprintf(stderr, "usage: %s /dev/i2c-N ADDR...\n", argv[0]); return 2; }
	int fails = 0;
	int fd = open(argv[1], O_RDWR);
	if (fd < 0) { perror(argv[1]); return 1; }
	unsigned long funcs = 0;
	if (ioctl(fd, I2C_FUNCS, &funcs) < 0) { perror("I2C_FUNCS"); return 1; }
	printf("i2c_check %s: I2C_FUNCS=0x%08lx plain-I2C=%d SMBUS_BYTE=%d I2C_BLOCK=%d\n", argv[1], funcs,
	       !!(funcs & I2C_FUNC_I2C), (funcs & I2C_FUNC_SMBUS_BYTE) == I2C_FUNC_SMBUS_BYTE,
	       (funcs & I2C_FUNC_SMBUS_I2C_BLOCK) == I2C_FUNC_SMBUS_I2C_BLOCK);
	for (int a = 2; a < argc; a++) {
		long addr = strtol(argv[a], NULL, 0);
		if (ioctl(fd, I2C_SLAVE, addr) < 0) { printf("  0x%02lx: I2C_SLAVE: %s\n", addr, strerror(errno)); fails++; continue; }
		const unsigned char cmds[] = { 0x21, 0x81, 0xEF };
		int cmd_fail = 0;
		for (unsigned i = 0; i < sizeof cmds; i++) {
			if (i2c_smbus_write_byte(fd, cmds[i]) < 0) {
				printf("  0x%02lx: i2c_smbus_write_byte(0x%02x): %s\n", addr, cmds[i], strerror(errno));
				cmd_fail = 1;
			}
		}
		unsigned char ram[16], back[32];
		for (int i = 0; i < 16; i++) ram[i] = (unsigned char)(addr + 7 * i);
		int w = i2c_smbus_write_i2c_block_data(fd, 0x00, 16, ram);
		int werr = errno;
		memset(back, 0, sizeof back);
		int r = i2c_smbus_read_i2c_block_data(fd, 0x00, 16, back);
		int ok = !cmd_fail && w == 0 && r == 16 && !memcmp(ram, back, 16);
		printf("  0x%02lx: commands %s, block write %s, block read %d bytes, match=%d: %s\n", addr, cmd_fail ? "FAILED" : "ok",
		       w == 0 ? "ok" : strerror(werr), r, r == 16 && !memcmp(ram, back, 16), ok ? "ok" : "FAIL");
		fails += !ok;
	}
	/* informational: what an SMBus-only adapter refuses */
	unsigned char raw[17] = { 0 };
	ssize_t pw = write(fd, raw, sizeof raw);
	int perr = errno;
	struct i2c_msg msg = { .addr = (unsigned short)strtol(argv[2], NULL, 0), .flags = 0, .len = 1, .buf = raw };
	struct i2c_rdwr_ioctl_data rdwr = { .msgs = &msg, .nmsgs = 1 };
	int rr = ioctl(fd, I2C_RDWR, &rdwr);
	printf("  info: plain write() = %zd (%s), I2C_RDWR = %d (%s)\n", pw, pw < 0 ? strerror(perr) : "ok", rr, rr < 0 ? strerror(errno) : "ok");
	close(fd);
	printf("i2c_check: %s\n", fails ? "FAIL" : "PASS");
	return fails != 0;
}
