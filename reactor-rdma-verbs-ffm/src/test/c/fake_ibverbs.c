/*
 * A stand-in for libibverbs.so.1 with only the device-list calls, for LibibverbsTest: DEVICES devices named
 * fake0, fake1, ... (compiled with -DDEVICES=n), or, with -DNO_KERNEL, the failure rdma-core gives on a kernel
 * without RDMA support (NULL and errno ENOSYS).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct ibv_device {
    char name[16];
};

#ifndef DEVICES
#define DEVICES 0
#endif

struct ibv_device **ibv_get_device_list(int *num) {
#ifdef NO_KERNEL
    errno = ENOSYS;
    if (num) {
        *num = 0;
    }
    return NULL;
#else
    static struct ibv_device devices[DEVICES > 0 ? DEVICES : 1];
    struct ibv_device **list = calloc(DEVICES + 1, sizeof(*list));
    for (int i = 0; i < DEVICES; i++) {
        snprintf(devices[i].name, sizeof(devices[i].name), "fake%d", i);
        list[i] = &devices[i];
    }
    if (num) {
        *num = DEVICES;
    }
    return list;
#endif
}

void ibv_free_device_list(struct ibv_device **list) {
    free(list);
}

const char *ibv_get_device_name(struct ibv_device *device) {
    return device->name;
}
