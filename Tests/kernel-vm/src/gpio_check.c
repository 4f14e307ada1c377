/* libgpiod check against gpio-sim, for the libgpiod v1 (1.6) or v2 (2.x) API, chosen at
 * compile time like the project's shim: only v1's gpiod.h defines GPIOD_LINE_BULK_MAX_LINES.
 *
 * usage: gpio_check BUTTON OUTPUT
 *   BUTTON  name of an input line (e.g. GPIO17), OUTPUT name of an output line (e.g. GPIO18)
 *
 * Lines are found by name across all chips. The simulator's attributes are reached through
 * /sys/bus/gpio/devices/<chip>/sim_gpio<offset>/{pull,value}. Checks:
 *   1. both names resolve;
 *   2. requesting the button as input, active-low, pull-up, both edges overrides the
 *      simulator's pull (set to pull-down first): the line reads released (0);
 *   3. "press" (sim pull-down) gives a RISING (logical) edge and value 1, "release"
 *      (pull-up) a FALLING edge and value 0, with increasing kernel timestamps;
 *   4. the output line set to 1 and 0 shows up in the simulator's value attribute. */
#include <gpiod.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define API "v1"
#else
#define API "v2"
#include <dirent.h>
#endif

static int fails;
static void check(int ok, const char *what) {
	printf("  %s: %s\n", ok ? "ok" : "FAIL", what);
	fails += !ok;
}

static int sim_write(const char *chip, unsigned off, const char *attr, const char *val) {
	char p[256];
	snprintf(p, sizeof p, "/sys/bus/gpio/devices/%s/sim_gpio%u/%s", chip, off, attr);
	FILE *f = fopen(p, "w");
	if (!f) { perror(p); return -1; }
	fputs(val, f);
	if (fclose(f) != 0) { perror(p); return -1; }
	return 0;
}

static void sim_read(const char *chip, unsigned off, const char *attr, char *out, size_t n) {
	char p[256];
	snprintf(p, sizeof p, "/sys/bus/gpio/devices/%s/sim_gpio%u/%s", chip, off, attr);
	out[0] = 0;
	FILE *f = fopen(p, "r");
	if (!f) { perror(p); snprintf(out, n, "?"); return; }
	if (!fgets(out, (int)n, f)) out[0] = 0;
	fclose(f);
	out[strcspn(out, "\n")] = 0;
}

struct found { char chip[256]; unsigned offset; };

/* ---------------------------------------------------------------- v1 (libgpiod 1.6) */
#ifdef GPIOD_LINE_BULK_MAX_LINES
static const char *lib_version(void) { return gpiod_version_string(); }

static int find(const char *name, struct found *f) {
	struct gpiod_line *line = gpiod_line_find(name);
	if (!line) return -1;
	snprintf(f->chip, sizeof f->chip, "%s", gpiod_chip_name(gpiod_line_get_chip(line)));
	f->offset = gpiod_line_offset(line);
	gpiod_line_close_chip(line);
	return 0;
}

static void button_test(const struct found *b) {
	struct gpiod_chip *chip = gpiod_chip_open_by_name(b->chip);
	struct gpiod_line *line = chip ? gpiod_chip_get_line(chip, b->offset) : NULL;
	struct gpiod_line_request_config cfg = {
		.consumer = "gpio_check",
		.request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
		.flags = GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW | GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP,
	};
	if (!line || gpiod_line_request(line, &cfg, 0) < 0) { perror("request button"); fails++; if (chip) gpiod_chip_close(chip); return; }
	char pull[32];
	sim_read(b->chip, b->offset, "pull", pull, sizeof pull);
	printf("  after request with bias pull-up: sim pull=%s, logical value=%d\n", pull, gpiod_line_get_value(line));
	check(gpiod_line_get_value(line) == 0, "bias pull-up from the request overrides the sim pull: released (0)");
	const char *pulls[] = { "pull-down", "pull-up" };
	const int want_type[] = { GPIOD_LINE_EVENT_RISING_EDGE, GPIOD_LINE_EVENT_FALLING_EDGE };
	long long last_ns = 0;
	for (int i = 0; i < 2; i++) {
		sim_write(b->chip, b->offset, "pull", pulls[i]);
		struct timespec to = { 2, 0 };
		struct gpiod_line_event ev;
		int r = gpiod_line_event_wait(line, &to);
		if (r != 1 || gpiod_line_event_read(line, &ev) < 0) { printf("  event after %s: wait=%d\n", pulls[i], r); check(0, "edge event"); continue; }
		long long ns = (long long)ev.ts.tv_sec * 1000000000LL + ev.ts.tv_nsec;
		int v = gpiod_line_get_value(line);
		printf("  %s -> %s edge at %lld.%09lld, value %d\n", pulls[i],
		       ev.event_type == GPIOD_LINE_EVENT_RISING_EDGE ? "RISING" : "FALLING", ns / 1000000000LL, ns % 1000000000LL, v);
		check(ev.event_type == want_type[i] && v == (i == 0) && ns > last_ns,
		      i == 0 ? "press (sim pull-down) = logical rising edge, value 1" : "release (sim pull-up) = logical falling edge, value 0");
		last_ns = ns;
	}
	gpiod_line_release(line);
	gpiod_chip_close(chip);
}

static void output_test(const struct found *o) {
	struct gpiod_chip *chip = gpiod_chip_open_by_name(o->chip);
	struct gpiod_line *line = chip ? gpiod_chip_get_line(chip, o->offset) : NULL;
	if (!line || gpiod_line_request_output(line, "gpio_check", 1) < 0) { perror("request output"); fails++; if (chip) gpiod_chip_close(chip); return; }
	char v1[8], v0[8];
	sim_read(o->chip, o->offset, "value", v1, sizeof v1);
	gpiod_line_set_value(line, 0);
	sim_read(o->chip, o->offset, "value", v0, sizeof v0);
	printf("  output set 1 -> sim value %s, set 0 -> sim value %s\n", v1, v0);
	check(!strcmp(v1, "1") && !strcmp(v0, "0"), "output line drives the simulator's value");
	gpiod_line_release(line);
	gpiod_chip_close(chip);
}

/* ---------------------------------------------------------------- v2 (libgpiod 2.x) */
#else
static const char *lib_version(void) { return gpiod_api_version(); }

static int find(const char *name, struct found *f) {
	DIR *d = opendir("/dev");
	if (!d) return -1;
	struct dirent *e;
	int rc = -1;
	while (rc < 0 && (e = readdir(d))) {
		char path[300];
		snprintf(path, sizeof path, "/dev/%s", e->d_name);
		if (strncmp(e->d_name, "gpiochip", 8) || !gpiod_is_gpiochip_device(path)) continue;
		struct gpiod_chip *chip = gpiod_chip_open(path);
		if (!chip) continue;
		int off = gpiod_chip_get_line_offset_from_name(chip, name);
		if (off >= 0) {
			snprintf(f->chip, sizeof f->chip, "%s", e->d_name);
			f->offset = (unsigned)off;
			rc = 0;
		}
		gpiod_chip_close(chip);
	}
	closedir(d);
	return rc;
}

static struct gpiod_line_request *request(const struct found *f, struct gpiod_line_settings *s) {
	char path[300];
	snprintf(path, sizeof path, "/dev/%s", f->chip);
	struct gpiod_chip *chip = gpiod_chip_open(path);
	if (!chip) return NULL;
	struct gpiod_line_config *lc = gpiod_line_config_new();
	struct gpiod_request_config *rc = gpiod_request_config_new();
	struct gpiod_line_request *req = NULL;
	if (lc && rc && gpiod_line_config_add_line_settings(lc, &f->offset, 1, s) == 0) {
		gpiod_request_config_set_consumer(rc, "gpio_check");
		req = gpiod_chip_request_lines(chip, rc, lc);
	}
	gpiod_request_config_free(rc);
	gpiod_line_config_free(lc);
	gpiod_chip_close(chip); /* the request keeps its own fd */
	return req;
}

static void button_test(const struct found *b) {
	struct gpiod_line_settings *s = gpiod_line_settings_new();
	gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_INPUT);
	gpiod_line_settings_set_edge_detection(s, GPIOD_LINE_EDGE_BOTH);
	gpiod_line_settings_set_bias(s, GPIOD_LINE_BIAS_PULL_UP);
	gpiod_line_settings_set_active_low(s, true);
	struct gpiod_line_request *req = request(b, s);
	gpiod_line_settings_free(s);
	if (!req) { perror("request button"); fails++; return; }
	char pull[32];
	sim_read(b->chip, b->offset, "pull", pull, sizeof pull);
	int v = gpiod_line_request_get_value(req, b->offset);
	printf("  after request with bias pull-up: sim pull=%s, logical value=%d\n", pull, v);
	check(v == GPIOD_LINE_VALUE_INACTIVE, "bias pull-up from the request overrides the sim pull: released (0)");
	struct gpiod_edge_event_buffer *buf = gpiod_edge_event_buffer_new(4);
	const char *pulls[] = { "pull-down", "pull-up" };
	const enum gpiod_edge_event_type want_type[] = { GPIOD_EDGE_EVENT_RISING_EDGE, GPIOD_EDGE_EVENT_FALLING_EDGE };
	uint64_t last_ns = 0;
	for (int i = 0; i < 2; i++) {
		sim_write(b->chip, b->offset, "pull", pulls[i]);
		int r = gpiod_line_request_wait_edge_events(req, 2000000000LL);
		int n = r == 1 ? gpiod_line_request_read_edge_events(req, buf, 4) : -1;
		if (n < 1) { printf("  event after %s: wait=%d read=%d\n", pulls[i], r, n); check(0, "edge event"); continue; }
		struct gpiod_edge_event *ev = gpiod_edge_event_buffer_get_event(buf, 0);
		uint64_t ns = gpiod_edge_event_get_timestamp_ns(ev);
		enum gpiod_edge_event_type t = gpiod_edge_event_get_event_type(ev);
		int val = gpiod_line_request_get_value(req, b->offset);
		printf("  %s -> %s edge at %llu.%09llu, value %d (%d event(s))\n", pulls[i], t == GPIOD_EDGE_EVENT_RISING_EDGE ? "RISING" : "FALLING",
		       (unsigned long long)(ns / 1000000000ULL), (unsigned long long)(ns % 1000000000ULL), val, n);
		check(t == want_type[i] && val == (i == 0) && ns > last_ns,
		      i == 0 ? "press (sim pull-down) = logical rising edge, value 1" : "release (sim pull-up) = logical falling edge, value 0");
		last_ns = ns;
	}
	gpiod_edge_event_buffer_free(buf);
	gpiod_line_request_release(req);
}

static void output_test(const struct found *o) {
	struct gpiod_line_settings *s = gpiod_line_settings_new();
	gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT);
	gpiod_line_settings_set_output_value(s, GPIOD_LINE_VALUE_ACTIVE);
	struct gpiod_line_request *req = request(o, s);
	gpiod_line_settings_free(s);
	if (!req) { perror("request output"); fails++; return; }
	char v1[8], v0[8];
	sim_read(o->chip, o->offset, "value", v1, sizeof v1);
	gpiod_line_request_set_value(req, o->offset, GPIOD_LINE_VALUE_INACTIVE);
	sim_read(o->chip, o->offset, "value", v0, sizeof v0);
	printf("  output set 1 -> sim value %s, set 0 -> sim value %s\n", v1, v0);
	check(!strcmp(v1, "1") && !strcmp(v0, "0"), "output line drives the simulator's value");
	gpiod_line_request_release(req);
}
#endif

int main(int argc, char **argv) {
	if (argc != 3) { fprintf(stderr, "usage: %s BUTTON-LINE OUTPUT-LINE\n", argv[0]); return 2; }
	printf("gpio_check: libgpiod API %s, library %s\n", API, lib_version());
	struct found b, o;
	int fb = find(argv[1], &b), fo = find(argv[2], &o);
	if (fb == 0) printf("  %s = %s:%u\n", argv[1], b.chip, b.offset);
	if (fo == 0) printf("  %s = %s:%u\n", argv[2], o.chip, o.offset);
	check(fb == 0 && fo == 0, "lines found by name");
	if (fb || fo) return 1;
	/* start from the simulator's other pull, so that the request's bias must change it */
	sim_write(b.chip, b.offset, "pull", "pull-down");
	button_test(&b);
	output_test(&o);
	printf("gpio_check (%s): %s\n", API, fails ? "FAIL" : "PASS");
	return fails != 0;
}
