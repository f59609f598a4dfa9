/*
 * The emulated libibverbs the FFM provider's tests load by path instead of rdma-core's, built by the tests with
 * gcc against rdma-core's headers. It grows with the provider: today the device list, opening a device,
 * what ibv_query_device / ibv_query_port report, protection domains and memory regions, completion channels and
 * completion queues (polled and armed through the context's operation table, as on a real library). Scenarios are chosen when it is compiled:
 *   -DDEVICES=n      n devices, emu0 .. emu{n-1} (default 1)
 *   -DNO_KERNEL      ibv_get_device_list fails as on a kernel without RDMA (NULL, errno ENOSYS)
 *   -DOPEN_EACCES    ibv_open_device fails as when /dev/infiniband/uverbsN is not accessible (errno EACCES)
 *   -DPORT_DOWN      port 1 is DOWN
 *   -DINFINIBAND     port 1's link layer is InfiniBand (default Ethernet: RoCE)
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
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

static int emu_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
static int emu_req_notify_cq(struct ibv_cq *cq, int solicited_only);

struct ibv_context *ibv_open_device(struct ibv_device *device) {
#ifdef OPEN_EACCES
    errno = EACCES;
    return NULL;
#endif
    struct ibv_context *context = calloc(1, sizeof(*context));
    if (!context) {
        errno = ENOMEM;
        return NULL;
    }
    context->device = device;
    context->cmd_fd = -1;
    context->async_fd = -1;
    context->num_comp_vectors = 1;
    /* What verbs.h's inline ibv_poll_cq and ibv_req_notify_cq call, as a driver's table would hold them. */
    context->ops.poll_cq = emu_poll_cq;
    context->ops.req_notify_cq = emu_req_notify_cq;
    return context;
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

/*
 * Completion channels and completion queues. A channel is a pipe: an event writes the CQ's address into it
 * (one 8-byte write, atomic), ibv_get_cq_event blocks reading one. A CQ is a ring of work completions with
 * RNIC arming rules: armed for any completion, the next one raises an event; armed solicited-only, only a
 * receive completion of a solicited SEND / WRITE_WITH_IMM or an error does; either way the arm is then spent.
 * Tests add completions through emu_complete until the emulated queue pairs produce them.
 */
struct emu_cq {
    struct ibv_cq cq; /* first: the provider sees a struct ibv_cq */
    pthread_mutex_t lock;
    struct ibv_wc *ring;
    int capacity;
    int head; /* next to poll */
    int count;
    int armed; /* 0: not armed, 1: solicited only, 2: any completion */
    int overrun;
};

struct emu_channel {
    struct ibv_comp_channel channel; /* first: the provider sees a struct ibv_comp_channel */
    int write_fd;
};

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context) {
    struct emu_channel *e = calloc(1, sizeof(*e));
    int fds[2];
    if (!e) {
        errno = ENOMEM;
        return NULL;
    }
    if (pipe(fds) != 0) {
        free(e);
        return NULL;
    }
    e->channel.context = context;
    e->channel.fd = fds[0];
    e->write_fd = fds[1];
    return &e->channel;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel) {
    struct emu_channel *e = (struct emu_channel *) channel;
    close(e->channel.fd);
    close(e->write_fd);
    free(e);
    return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
                             struct ibv_comp_channel *channel, int comp_vector) {
    (void) comp_vector;
    if (cqe < 1 || cqe > 65535) {
        errno = EINVAL;
        return NULL;
    }
    struct emu_cq *e = calloc(1, sizeof(*e));
    if (!e || !(e->ring = calloc((size_t) cqe, sizeof(struct ibv_wc)))) {
        free(e);
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_init(&e->lock, NULL);
    e->capacity = cqe;
    e->cq.context = context;
    e->cq.channel = channel;
    e->cq.cq_context = cq_context;
    e->cq.cqe = cqe;
    return &e->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq) {
    struct emu_cq *e = (struct emu_cq *) cq;
    pthread_mutex_destroy(&e->lock);
    free(e->ring);
    free(e);
    return 0;
}

static int emu_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc) {
    struct emu_cq *e = (struct emu_cq *) cq;
    int n = 0;
    pthread_mutex_lock(&e->lock);
    while (n < num_entries && e->count > 0) {
        wc[n++] = e->ring[e->head];
        e->head = (e->head + 1) % e->capacity;
        e->count--;
    }
    pthread_mutex_unlock(&e->lock);
    return n;
}

static int emu_req_notify_cq(struct ibv_cq *cq, int solicited_only) {
    struct emu_cq *e = (struct emu_cq *) cq;
    if (!cq->channel) {
        return EINVAL;
    }
    pthread_mutex_lock(&e->lock);
    if (e->armed != 2) {
        e->armed = solicited_only ? 1 : 2;
    }
    pthread_mutex_unlock(&e->lock);
    return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context) {
    struct ibv_cq *got;
    ssize_t r = read(channel->fd, &got, sizeof(got));
    if (r != (ssize_t) sizeof(got)) {
        return -1;
    }
    *cq = got;
    *cq_context = got->cq_context;
    return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents) {
    struct emu_cq *e = (struct emu_cq *) cq;
    pthread_mutex_lock(&e->lock);
    cq->comp_events_completed += nevents;
    pthread_mutex_unlock(&e->lock);
}

/*
 * Adds a completion to cq as the emulated hardware would; returns 0, or ENOSPC when the CQ is full (an RNIC
 * reports that as a CQ overrun: the CQ is then in error).
 */
int emu_complete(struct ibv_cq *cq, uint64_t wr_id, int status, int opcode, uint32_t byte_len, uint32_t qp_num,
                 int solicited) {
    struct emu_cq *e = (struct emu_cq *) cq;
    int raise;
    pthread_mutex_lock(&e->lock);
    if (e->count == e->capacity) {
        e->overrun = 1;
        pthread_mutex_unlock(&e->lock);
        return ENOSPC;
    }
    struct ibv_wc *wc = &e->ring[(e->head + e->count) % e->capacity];
    memset(wc, 0, sizeof(*wc));
    wc->wr_id = wr_id;
    wc->status = (enum ibv_wc_status) status;
    wc->opcode = (enum ibv_wc_opcode) opcode;
    wc->byte_len = byte_len;
    wc->qp_num = qp_num;
    e->count++;
    int receive = opcode == IBV_WC_RECV || opcode == IBV_WC_RECV_RDMA_WITH_IMM;
    raise = e->armed == 2 || (e->armed == 1 && (status != IBV_WC_SUCCESS || (receive && solicited)));
    if (raise) {
        e->armed = 0;
    }
    pthread_mutex_unlock(&e->lock);
    if (raise) {
        ssize_t w = write(((struct emu_channel *) cq->channel)->write_fd, &cq, sizeof(cq));
        (void) w;
    }
    return 0;
}
