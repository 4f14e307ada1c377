/*
 * The gateway's only C: libmosquitto, the Eclipse Mosquitto project's MQTT client library
 * (Debian libmosquitto-dev, pkg-config libmosquitto). Swift calls mosquitto_* directly
 * (Sources/MosquittoClient/MQTTClient.swift); the one wrapper below exists because Swift
 * cannot read the C `errno` a MOSQ_ERR_ERRNO result refers to as portably as C can.
 */
#ifndef ROUNDCLOCK_MOSQUITTO_H
#define ROUNDCLOCK_MOSQUITTO_H

#include <errno.h>
#include <string.h>
#include <mosquitto.h>

/* mosquitto_connect_async(), mosquitto_will_set() and MQTT 3.1.1 need libmosquitto 1.4+;
 * Debian 12 ships 2.0.11, Debian 13 2.0.21. */
_Static_assert(LIBMOSQUITTO_MAJOR >= 2, "libmosquitto 2.x (Debian 12 or later) is required");

/* The text of a libmosquitto result: mosquitto_strerror(), or for MOSQ_ERR_ERRNO (the
 * system call's failure is in errno) strerror(errno), read at once. */
static inline const char *rc_mosquitto_error(int result) {
    return result == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(result);
}

#endif
