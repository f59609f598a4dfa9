/*
 * The emulated libibverbs the FFM provider's tests load by path instead of rdma-core's, built by the tests with
 * gcc against rdma-core's headers. It grows with the provider: today the device list, opening a device, and
 * what ibv_query_device / ibv_query_port report. Scenarios are chosen when it is compiled:
 *   -DDEVICES=n      n devices, emu0 .. emu{n-1} (default 1)
 *   -DNO_KERNEL      ibv_get_device_list fails as on a kernel without RDMA (NULL, errno ENOSYS)
 *   -DOPEN_EACCES    ibv_open_device fails as when /dev/infiniband/uverbsN is not accessible (errno EACCES)
 *   -DPORT_DOWN      port 1 is DOWN
 *   -DINFINIBAND     port 1's link layer is InfiniBand (default Ethernet: RoCE)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#undef ibv_query_port

#ifndef DEVICES
#define DEVICES 1
#endif

struct emu_device {
    struct ibv_device device;
};

struct ibv_device **ibv_get_device_list(int *num) {
#ifdef NO_KERNEL
    errno = ENOSYS;
    if (num) {
        *num = 0;
    }
    return NULL;
#else
    static struct emu_device devices[DEVICES > 0 ? DEVICES : 1];
    struct ibv_device **list = calloc(DEVICES + 1, sizeof(*list));
    for (int i = 0; i < DEVICES; i++) {
        snprintf(devices[i].device.name, sizeof(devices[i].device.name), "emu%d", i);
        list[i] = &devices[i].device;
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

struct ibv_context *ibv_open_device(struct ibv_device *device) {
#ifdef OPEN_EACCES
    (void) device;
    errno = EACCES;
    return NULL;
#else
    struct ibv_context *context = calloc(1, sizeof(*context));
    if (!context) {
        errno = ENOMEM;
        return NULL;
    }
    context->device = device;
    context->cmd_fd = -1;
    context->async_fd = -1;
    context->num_comp_vectors = 1;
    return context;
#endif
}

int ibv_close_device(struct ibv_context *context) {
    free(context);
    return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr) {
    (void) context;
    memset(attr, 0, sizeof(*attr));
    strcpy(attr->fw_ver, "emulated 1.0");
    attr->max_mr_size = 1ULL << 40;
    attr->page_size_cap = 4096;
    attr->vendor_id = 0x02c9;
    attr->max_qp = 1024;
    attr->max_qp_wr = 8192;
    attr->max_sge = 30;
    attr->max_cq = 1024;
    attr->max_cqe = 65535;
    attr->max_mr = 4096;
    attr->max_pd = 256;
    attr->max_qp_rd_atom = 16;
    attr->max_qp_init_rd_atom = 16;
    attr->max_srq = 256;
    attr->phys_port_cnt = 1;
    return 0;
}

/* The exported symbol takes rdma-core's compat struct: the fields of ibv_port_attr up to link_layer. */
int ibv_query_port(struct ibv_context *context, uint8_t port, struct _compat_ibv_port_attr *compat) {
    struct ibv_port_attr *attr = (struct ibv_port_attr *) compat;
    (void) context;
    if (port != 1) {
        return EINVAL;
    }
    memset(attr, 0, offsetof(struct ibv_port_attr, flags));
#ifdef PORT_DOWN
    attr->state = IBV_PORT_DOWN;
#else
    attr->state = IBV_PORT_ACTIVE;
#endif
    attr->max_mtu = IBV_MTU_4096;
    attr->active_mtu = IBV_MTU_1024;
    attr->gid_tbl_len = 16;
    attr->max_msg_sz = 1U << 31;
#ifdef INFINIBAND
    attr->link_layer = IBV_LINK_LAYER_INFINIBAND;
#else
    attr->link_layer = IBV_LINK_LAYER_ETHERNET;
#endif
    return 0;
}

/*
 * Protection domains and memory regions: keys from one counter (lkey == rkey, as many drivers do), access flags
 * checked as the verbs spec asks (remote write or atomic access needs local write).
 *   -DREG_ENOMEM     ibv_reg_mr fails as when the memlock limit is too low (NULL, errno ENOMEM)
 */
#undef ibv_reg_mr

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context) {
    struct ibv_pd *pd = calloc(1, sizeof(*pd));
    if (!pd) {
        errno = ENOMEM;
        return NULL;
    }
    pd->context = context;
    return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd) {
    free(pd);
    return 0;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access) {
#ifdef REG_ENOMEM
    (void) pd;
    (void) addr;
    (void) length;
    (void) access;
    errno = ENOMEM;
    return NULL;
#else
    static uint32_t next_key = 0x100;
    if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE)) {
        errno = EINVAL;
        return NULL;
    }
    struct ibv_mr *mr = calloc(1, sizeof(*mr));
    if (!mr) {
        errno = ENOMEM;
        return NULL;
    }
    mr->context = pd->context;
    mr->pd = pd;
    mr->addr = addr;
    mr->length = length;
    mr->lkey = mr->rkey = next_key++;
    return mr;
#endif
}

int ibv_dereg_mr(struct ibv_mr *mr) {
    free(mr);
    return 0;
}
