/*
 * RoundClock's only C: tiny prefixed wrappers over libi2c (Debian libi2c-dev) and
 * libgpiod, presenting ONE API for libgpiod v1 (1.6: Debian 12, Pi OS bookworm) and
 * v2 (2.x: Debian 13, Pi OS trixie). v1's header defines GPIOD_LINE_BULK_MAX_LINES,
 * v2's does not: that picks the branch at compile time. Swift calls gpiod_* only
 * through these functions (Sources/LinuxHardware/GPIO*.swift).
 *
 * Every function returns -1 (or NULL) with errno set on failure.
 */
#ifndef ROUNDCLOCK_LINUX_H
#define ROUNDCLOCK_LINUX_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
#include <gpiod.h>

/* The HT16K33 driver never writes more than 16 RAM bytes in one SMBus block. */
_Static_assert(I2C_SMBUS_BLOCK_MAX == 32, "SMBus block transfers carry at most 32 bytes");

/* ---------------------------------------------------------------- I2C ---- */

/* open(2) /dev/i2c-N read-write, close-on-exec. */
static inline int rc_i2c_open(const char *path) { return open(path, O_RDWR | O_CLOEXEC); }

/* ioctl(I2C_SLAVE): address the 7-bit target for the following transfers. */
static inline int rc_i2c_select(int fd, uint8_t address) { return ioctl(fd, I2C_SLAVE, (unsigned long)address); }

/* SMBus "send byte": one command byte (HT16K33 0x21, 0x81, 0xE0|level, ...). */
static inline int rc_i2c_send_byte(int fd, uint8_t byte) { return i2c_smbus_write_byte(fd, byte) < 0 ? -1 : 0; }

/* SMBus "write I2C block data": register byte then up to 32 data bytes. */
static inline int rc_i2c_write_block(int fd, uint8_t reg, uint8_t length, const uint8_t *bytes) {
    return i2c_smbus_write_i2c_block_data(fd, reg, length, bytes) < 0 ? -1 : 0;
}

/* SMBus "read I2C block data": returns the number of bytes read, or -1. */
static inline int rc_i2c_read_block(int fd, uint8_t reg, uint8_t length, uint8_t *bytes) {
    return i2c_smbus_read_i2c_block_data(fd, reg, length, bytes);
}

/* SMBus "read byte data": register byte, repeated start, one byte read back (HT16K33: one
 * display RAM byte, the power-loss check). Returns the byte 0..255, or -1. */
static inline int rc_i2c_read_byte_data(int fd, uint8_t reg) {
    int value = i2c_smbus_read_byte_data(fd, reg);
    return value < 0 ? -1 : value;
}

/* Whether the adapter can do SMBus "read byte data" (ioctl I2C_FUNCS,
 * I2C_FUNC_SMBUS_READ_BYTE_DATA): 1 yes, 0 no, -1 on error. */
static inline int rc_i2c_can_read_byte_data(int fd) {
    unsigned long funcs = 0;
    if (ioctl(fd, I2C_FUNCS, &funcs) < 0) return -1;
    return (funcs & I2C_FUNC_SMBUS_READ_BYTE_DATA) ? 1 : 0;
}

/* SMBus "read byte data" of register 0: a harmless probe (HT16K33 display RAM). */
static inline int rc_i2c_probe(int fd) { return rc_i2c_read_byte_data(fd, 0x00); }

/* --------------------------------------------------------------- GPIO ---- */

enum rc_gpio_bias { RC_BIAS_AS_IS = 0, RC_BIAS_DISABLED = 1, RC_BIAS_PULL_UP = 2, RC_BIAS_PULL_DOWN = 3 };

/* One requested line (input with both-edge events, or output). */
typedef struct rc_gpio_line {
#ifdef GPIOD_LINE_BULK_MAX_LINES
    struct gpiod_chip *chip;
    struct gpiod_line *line;
#else
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events;
    unsigned int offset;
#endif
} rc_gpio_line;

/* 1 or 2: the libgpiod API this binary was built against. */
static inline int rc_gpio_api_version(void) {
#ifdef GPIOD_LINE_BULK_MAX_LINES
    return 1;
#else
    return 2;
#endif
}

/* Chip facts for `roundclock probe`. */
static inline int rc_gpio_chip_info(const char *path, char *name, size_t name_len, char *label, size_t label_len,
                                    unsigned int *num_lines) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
#ifdef GPIOD_LINE_BULK_MAX_LINES
    snprintf(name, name_len, "%s", gpiod_chip_name(chip));
    snprintf(label, label_len, "%s", gpiod_chip_label(chip));
    *num_lines = gpiod_chip_num_lines(chip);
#else
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info) { int e = errno; gpiod_chip_close(chip); errno = e; return -1; }
    snprintf(name, name_len, "%s", gpiod_chip_info_get_name(info));
    snprintf(label, label_len, "%s", gpiod_chip_info_get_label(info));
    *num_lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
#endif
    gpiod_chip_close(chip);
    return 0;
}

/* Line facts: name ("" if unnamed), consumer ("" if free), used, output. */
static inline int rc_gpio_line_info(const char *path, unsigned int offset, char *name, size_t name_len,
                                    char *consumer, size_t consumer_len, int *used, int *output) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
#ifdef GPIOD_LINE_BULK_MAX_LINES
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line) { int e = errno; gpiod_chip_close(chip); errno = e; return -1; }
    const char *n = gpiod_line_name(line), *c = gpiod_line_consumer(line);
    snprintf(name, name_len, "%s", n ? n : "");
    snprintf(consumer, consumer_len, "%s", c ? c : "");
    *used = gpiod_line_is_used(line) ? 1 : 0;
    *output = gpiod_line_direction(line) == GPIOD_LINE_DIRECTION_OUTPUT ? 1 : 0;
#else
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (!info) { int e = errno; gpiod_chip_close(chip); errno = e; return -1; }
    const char *n = gpiod_line_info_get_name(info), *c = gpiod_line_info_get_consumer(info);
    snprintf(name, name_len, "%s", n ? n : "");
    snprintf(consumer, consumer_len, "%s", c ? c : "");
    *used = gpiod_line_info_is_used(info) ? 1 : 0;
    *output = gpiod_line_info_get_direction(info) == GPIOD_LINE_DIRECTION_OUTPUT ? 1 : 0;
    gpiod_line_info_free(info);
#endif
    gpiod_chip_close(chip);
    return 0;
}

/* Offset of the line called `name` on chip `path`: >= 0, or -1 (errno ENOENT if absent). */
static inline int rc_gpio_find_on_chip(const char *path, const char *name) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
#ifdef GPIOD_LINE_BULK_MAX_LINES
    int offset = -1;
    unsigned int n = gpiod_chip_num_lines(chip);
    for (unsigned int i = 0; i < n && offset < 0; i++) {
        struct gpiod_line *line = gpiod_chip_get_line(chip, i);
        const char *line_name = line ? gpiod_line_name(line) : NULL;
        if (line_name && strcmp(line_name, name) == 0) offset = (int)i;
    }
    if (offset < 0) errno = ENOENT;
#else
    int offset = gpiod_chip_get_line_offset_from_name(chip, name);
#endif
    int e = errno;
    gpiod_chip_close(chip);
    errno = e;
    return offset;
}

#ifdef GPIOD_LINE_BULK_MAX_LINES
/* v1: opens the chip and looks up the line into `handle`; 0 on failure. */
static inline int rc__gpio_open_v1(rc_gpio_line *handle, const char *path, unsigned int offset) {
    handle->chip = gpiod_chip_open(path);
    handle->line = handle->chip ? gpiod_chip_get_line(handle->chip, offset) : NULL;
    return handle->line != NULL;
}

/* v1: undoes a failed request, keeping errno; returns NULL. */
static inline rc_gpio_line *rc__gpio_fail_v1(rc_gpio_line *handle) {
    int e = errno;
    if (handle->chip) gpiod_chip_close(handle->chip);
    free(handle);
    errno = e;
    return NULL;
}
#else
/* v2: one line with the given settings; takes ownership of nothing. */
static inline struct gpiod_line_request *rc__gpio_request_v2(const char *path, unsigned int offset, const char *consumer,
                                                              struct gpiod_line_settings *settings) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return NULL;
    struct gpiod_line_config *config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    struct gpiod_line_request *request = NULL;
    if (config && request_config && gpiod_line_config_add_line_settings(config, &offset, 1, settings) == 0) {
        gpiod_request_config_set_consumer(request_config, consumer);
        request = gpiod_chip_request_lines(chip, request_config, config);
    }
    int e = errno;
    if (request_config) gpiod_request_config_free(request_config);
    if (config) gpiod_line_config_free(config);
    gpiod_chip_close(chip);
    errno = e;
    return request;
}
#endif

/* Input with both-edge events and kernel timestamps (CLOCK_MONOTONIC), bias, active-low;
 * v2 also sets the kernel debounce period (0 = none). */
static inline rc_gpio_line *rc_gpio_request_input(const char *path, unsigned int offset, const char *consumer,
                                                  int active_low, int bias, unsigned int debounce_us) {
    rc_gpio_line *handle = calloc(1, sizeof *handle);
    if (!handle) return NULL;
#ifdef GPIOD_LINE_BULK_MAX_LINES
    (void)debounce_us;
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (bias == RC_BIAS_DISABLED) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    if (bias == RC_BIAS_PULL_UP) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    if (bias == RC_BIAS_PULL_DOWN) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    if (!rc__gpio_open_v1(handle, path, offset) ||
        gpiod_line_request_both_edges_events_flags(handle->line, consumer, flags) < 0)
        return rc__gpio_fail_v1(handle);
#else
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) { free(handle); return NULL; }
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
    gpiod_line_settings_set_active_low(settings, active_low ? true : false);
    gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC);
    gpiod_line_settings_set_debounce_period_us(settings, debounce_us);
    if (bias != RC_BIAS_AS_IS)
        gpiod_line_settings_set_bias(settings, bias == RC_BIAS_DISABLED ? GPIOD_LINE_BIAS_DISABLED
                                               : bias == RC_BIAS_PULL_UP ? GPIOD_LINE_BIAS_PULL_UP
                                                                         : GPIOD_LINE_BIAS_PULL_DOWN);
    handle->offset = offset;
    handle->request = rc__gpio_request_v2(path, offset, consumer, settings);
    int e = errno;
    gpiod_line_settings_free(settings);
    handle->events = handle->request ? gpiod_edge_event_buffer_new(16) : NULL;
    if (!handle->events) {
        if (handle->request) gpiod_line_request_release(handle->request);
        free(handle);
        errno = e ? e : ENOMEM;
        return NULL;
    }
#endif
    return handle;
}

/* Output line (buzzer/relay), driven to `initial` (logical, active_low honoured). */
static inline rc_gpio_line *rc_gpio_request_output(const char *path, unsigned int offset, const char *consumer,
                                                   int active_low, int initial) {
    rc_gpio_line *handle = calloc(1, sizeof *handle);
    if (!handle) return NULL;
#ifdef GPIOD_LINE_BULK_MAX_LINES
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (!rc__gpio_open_v1(handle, path, offset) ||
        gpiod_line_request_output_flags(handle->line, consumer, flags, initial ? 1 : 0) < 0)
        return rc__gpio_fail_v1(handle);
#else
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) { free(handle); return NULL; }
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_active_low(settings, active_low ? true : false);
    gpiod_line_settings_set_output_value(settings, initial ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
    handle->offset = offset;
    handle->request = rc__gpio_request_v2(path, offset, consumer, settings);
    int e = errno;
    gpiod_line_settings_free(settings);
    if (!handle->request) { free(handle); errno = e; return NULL; }
#endif
    return handle;
}

/* The fd to poll(2) for edge events (POLLIN). */
static inline int rc_gpio_event_fd(rc_gpio_line *handle) {
#ifdef GPIOD_LINE_BULK_MAX_LINES
    return gpiod_line_event_get_fd(handle->line);
#else
    return gpiod_line_request_get_fd(handle->request);
#endif
}

/* Reads one pending edge: *active = 1 for a logical rising edge (pressed, with
 * active-low), 0 for falling; *timestamp_ns from the kernel (CLOCK_MONOTONIC). */
static inline int rc_gpio_read_event(rc_gpio_line *handle, int *active, uint64_t *timestamp_ns) {
#ifdef GPIOD_LINE_BULK_MAX_LINES
    struct gpiod_line_event event;
    if (gpiod_line_event_read(handle->line, &event) < 0) return -1;
    *active = event.event_type == GPIOD_LINE_EVENT_RISING_EDGE ? 1 : 0;
    *timestamp_ns = (uint64_t)event.ts.tv_sec * 1000000000ull + (uint64_t)event.ts.tv_nsec;
#else
    if (gpiod_line_request_read_edge_events(handle->request, handle->events, 1) < 1) return -1;
    struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(handle->events, 0);
    *active = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE ? 1 : 0;
    *timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
#endif
    return 0;
}

/* Logical value (1 = active). */
static inline int rc_gpio_get_value(rc_gpio_line *handle) {
#ifdef GPIOD_LINE_BULK_MAX_LINES
    return gpiod_line_get_value(handle->line);
#else
    int v = gpiod_line_request_get_value(handle->request, handle->offset);
    return v == GPIOD_LINE_VALUE_ERROR ? -1 : v;
#endif
}

static inline int rc_gpio_set_value(rc_gpio_line *handle, int value) {
#ifdef GPIOD_LINE_BULK_MAX_LINES
    return gpiod_line_set_value(handle->line, value ? 1 : 0);
#else
    return gpiod_line_request_set_value(handle->request, handle->offset,
                                        value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
#endif
}

static inline void rc_gpio_release(rc_gpio_line *handle) {
    if (!handle) return;
#ifdef GPIOD_LINE_BULK_MAX_LINES
    gpiod_line_release(handle->line);
    gpiod_chip_close(handle->chip);
#else
    gpiod_edge_event_buffer_free(handle->events);
    gpiod_line_request_release(handle->request);
#endif
    free(handle);
}

/* CLOCK_MONOTONIC now, ns: the clock of the kernel's GPIO event timestamps. */
static inline uint64_t rc_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
