/*
 * The emulated rdma-core (libibverbs and librdmacm in one library) the FFM provider's tests load by path instead
 * of rdma-core's, built by the tests with
 * gcc against rdma-core's headers. It grows with the provider: today the device list, opening a device,
 * what ibv_query_device / ibv_query_port report, protection domains and memory regions, completion channels and
 * completion queues, and reliable-connected queue pairs between two QPs of this process (polled, armed and
 * posted through the context's operation table, as on a real library). Scenarios are chosen when it is compiled:
 *   -DDEVICES=n      n devices, emu0 .. emu{n-1} (default 1); rdma_cm puts 127.0.0.1 on emu0, 127.0.0.2 on emu1, ...
 *   -DNO_KERNEL      ibv_get_device_list fails as on a kernel without RDMA (NULL, errno ENOSYS)
 *   -DOPEN_EACCES    ibv_open_device fails as when /dev/infiniband/uverbsN is not accessible (errno EACCES)
 *   -DPORT_DOWN      port 1 is DOWN
 *   -DINFINIBAND     port 1's link layer is InfiniBand (default Ethernet: RoCE)
 *   -DACCEPT_FAILS   rdma_accept fails (ENOMEM) and leaves the request unanswered
 * Tests reach two hooks by symbol: emu_complete (a completion as the hardware would add it) and
 * emu_inject_cm_event (ADDR_CHANGE or DEVICE_REMOVAL on a connected id).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <netinet/in.h>

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
static int emu_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
static int emu_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);

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
    /* What verbs.h's inline ibv_poll_cq, ibv_req_notify_cq, ibv_post_send and ibv_post_recv call, as a driver's
       table would hold them. */
    context->ops.poll_cq = emu_poll_cq;
    context->ops.req_notify_cq = emu_req_notify_cq;
    context->ops.post_send = emu_post_send;
    context->ops.post_recv = emu_post_recv;
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

/* Every registered region with its access, so that a key in a work request can be checked as an RNIC does. */
#define MAX_MRS 4096
static struct {
    struct ibv_mr *mr;
    int access;
} mrs[MAX_MRS];
static pthread_mutex_t mrs_lock = PTHREAD_MUTEX_INITIALIZER;

static void mr_register(struct ibv_mr *mr, int access) {
    pthread_mutex_lock(&mrs_lock);
    for (int i = 0; i < MAX_MRS; i++) {
        if (!mrs[i].mr) {
            mrs[i].mr = mr;
            mrs[i].access = access;
            break;
        }
    }
    pthread_mutex_unlock(&mrs_lock);
}

static void mr_forget(struct ibv_mr *mr) {
    pthread_mutex_lock(&mrs_lock);
    for (int i = 0; i < MAX_MRS; i++) {
        if (mrs[i].mr == mr) {
            mrs[i].mr = NULL;
        }
    }
    pthread_mutex_unlock(&mrs_lock);
}

/* Whether [addr, addr + length) lies in a region of pd with key `key` (an lkey or an rkey) and all of `access`. */
static int mr_allows(struct ibv_pd *pd, uint32_t key, int rkey, uint64_t addr, uint64_t length, int access) {
    int ok = 0;
    pthread_mutex_lock(&mrs_lock);
    for (int i = 0; i < MAX_MRS && !ok; i++) {
        struct ibv_mr *mr = mrs[i].mr;
        if (mr && mr->pd == pd && (rkey ? mr->rkey : mr->lkey) == key && (mrs[i].access & access) == access
                && addr >= (uint64_t) (uintptr_t) mr->addr && addr + length <= (uint64_t) (uintptr_t) mr->addr + mr->length) {
            ok = 1;
        }
    }
    pthread_mutex_unlock(&mrs_lock);
    return ok;
}

struct emu_pd {
    struct ibv_pd pd; /* first: the provider sees a struct ibv_pd */
    int qps;          /* queue pairs in it, under pds_lock: ibv_dealloc_pd refuses while > 0 */
};
static pthread_mutex_t pds_lock = PTHREAD_MUTEX_INITIALIZER;

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context) {
    struct emu_pd *e = calloc(1, sizeof(*e));
    if (!e) {
        errno = ENOMEM;
        return NULL;
    }
    e->pd.context = context;
    return &e->pd;
}

/* Counts a queue pair in (+1) or out (-1) of its protection domain. */
static void pd_uses(struct ibv_pd *pd, int delta) {
    pthread_mutex_lock(&pds_lock);
    ((struct emu_pd *) pd)->qps += delta;
    pthread_mutex_unlock(&pds_lock);
}

int ibv_dealloc_pd(struct ibv_pd *pd) {
    pthread_mutex_lock(&pds_lock);
    int used = ((struct emu_pd *) pd)->qps;
    pthread_mutex_unlock(&pds_lock);
    if (used > 0) { /* as rdma-core: a domain a queue pair is still in is not freed */
        errno = EBUSY;
        return EBUSY;
    }
    free(pd);
    return 0;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access) {
#ifdef REG_ENOMEM
    errno = ENOMEM;
    return NULL;
#endif
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
    mr_register(mr, access);
    return mr;
}

int ibv_dereg_mr(struct ibv_mr *mr) {
    mr_forget(mr);
    free(mr);
    return 0;
}

/*
 * Completion channels and completion queues. A channel is a pipe: an event writes the CQ's address into it
 * (one 8-byte write, atomic), ibv_get_cq_event blocks reading one. A CQ is a ring of work completions with
 * RNIC arming rules: armed for any completion, the next one raises an event; armed solicited-only, only a
 * receive completion of a solicited SEND / WRITE_WITH_IMM or an error does; either way the arm is then spent.
 * Tests add completions through emu_complete until the emulated queue pairs produce them. A completion that finds
 * the CQ full overruns it: polling fails from then on.
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
    int qps; /* queue pairs that complete into it (send or receive side each count): ibv_destroy_cq refuses while > 0 */
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

/* Counts a queue pair in (+1) or out (-1) of the queues it completes into. */
static void cq_uses(struct ibv_cq *cq, int delta) {
    struct emu_cq *e = (struct emu_cq *) cq;
    pthread_mutex_lock(&e->lock);
    e->qps += delta;
    pthread_mutex_unlock(&e->lock);
}

int ibv_destroy_cq(struct ibv_cq *cq) {
    struct emu_cq *e = (struct emu_cq *) cq;
    pthread_mutex_lock(&e->lock);
    int used = e->qps;
    pthread_mutex_unlock(&e->lock);
    if (used > 0) { /* as rdma-core: a CQ a queue pair still uses is not destroyed */
        errno = EBUSY;
        return EBUSY;
    }
    pthread_mutex_destroy(&e->lock);
    free(e->ring);
    free(e);
    return 0;
}

static int emu_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc) {
    struct emu_cq *e = (struct emu_cq *) cq;
    int n = 0;
    pthread_mutex_lock(&e->lock);
    if (e->overrun) {
        /* a completion found the CQ full: the CQ is in error from then on, as on an RNIC (IBV_EVENT_CQ_ERR) */
        pthread_mutex_unlock(&e->lock);
        return -1;
    }
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

static int cq_push(struct ibv_cq *cq, uint64_t wr_id, int status, int opcode, uint32_t byte_len, uint32_t qp_num,
                   int solicited, int with_imm, uint32_t imm);

/*
 * Adds a completion to cq as the emulated hardware would; returns 0, or ENOSPC when the CQ is full (an RNIC
 * reports that as a CQ overrun: the CQ is then in error).
 */
int emu_complete(struct ibv_cq *cq, uint64_t wr_id, int status, int opcode, uint32_t byte_len, uint32_t qp_num,
                 int solicited) {
    return cq_push(cq, wr_id, status, opcode, byte_len, qp_num, solicited, 0, 0);
}

static int cq_push(struct ibv_cq *cq, uint64_t wr_id, int status, int opcode, uint32_t byte_len, uint32_t qp_num,
                   int solicited, int with_imm, uint32_t imm) {
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
    if (status != IBV_WC_SUCCESS) {
        /* ibv_poll_cq(3): of a failed completion only wr_id, status, qp_num and vendor_err are valid; a real device
           leaves the rest undefined, so the emulation fills them with junk a provider must not read */
        wc->opcode = (enum ibv_wc_opcode) 0x5a;
        wc->byte_len = 0xdeadbeef;
    }
    if (with_imm) {
        wc->wc_flags = IBV_WC_WITH_IMM;
        wc->imm_data = imm;
    }
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

/*
 * Reliable-connected queue pairs, both ends in this process. A QP moves RESET -> INIT -> RTR -> RTS with the
 * attribute masks ibv_modify_qp(3) requires for RC; its peer is the QP named by dest_qp_num. A post executes each
 * work request at once, as a NIC with an infinitely fast wire would: a SEND (or WRITE_WITH_IMM) consumes the peer's
 * oldest posted receive, a WRITE or READ checks the rkey, range and access of the peer's region, and completions go
 * to both CQs (a sender's only when signaled, or on error). Errors are an RNIC's: no receive posted is
 * RNR_RETRY_EXC_ERR when rnr_retry is finite (its retries count as exhausted at once); with rnr_retry 7 (retry
 * forever) the send waits, and the sends behind it, until the peer posts a receive (a deferred completion; waiting
 * sends count against max_send_wr: a post beyond it is ENOMEM). A receive too small is LOC_LEN_ERR at the receiver and
 * REM_INV_REQ_ERR at the sender, a bad rkey or range REM_ACCESS_ERR (the responder enters ERR too), a bad lkey
 * LOC_PROT_ERR; the QP that failed enters ERR and flushes its posted receives and waiting sends (WR_FLUSH_ERR), and
 * later posts complete flushed too. rdma_cm applies the rnr_retry_count of a connect to the server's QP and that of
 * an accept to the client's, as the IB CM does.
 */
#define MAX_QPS 1024
#define QPN_BASE 0x40

struct emu_recv {
    uint64_t wr_id;
    int num_sge;
    struct ibv_sge sge[8];
};

/* A send waiting for the peer's receive (rnr_retry 7: the requester retries forever), with its own copy of the
   request: the caller may reuse its work request, and an inline payload, as soon as the post returns. */
struct emu_pending {
    struct ibv_send_wr wr;
    struct ibv_sge sge[30];
    uint8_t *inline_data;
    struct emu_pending *next;
};

struct emu_qp {
    struct ibv_qp qp; /* first: the provider sees a struct ibv_qp */
    pthread_mutex_t lock;
    struct ibv_qp_cap cap;
    int sq_sig_all;
    uint32_t dest_qp_num;
    int access;
    int rnr_retry;
    struct emu_recv *rq;
    int rq_head;
    int rq_count;
    pthread_mutex_t pending_lock; /* taken before a peer's lock, never while holding this QP's own lock */
    struct emu_pending *pending_head;
    struct emu_pending *pending_tail;
    int pending_count;
};

static struct emu_qp *qps[MAX_QPS];
static pthread_mutex_t qps_lock = PTHREAD_MUTEX_INITIALIZER;
/* Posts and state changes hold it shared while they may reach a peer found by number (qp_by_num); ibv_destroy_qp
   holds it exclusively while it takes its QP out of the table, so that no peer is freed under them. */
static pthread_rwlock_t qps_life = PTHREAD_RWLOCK_INITIALIZER;

static void drain_pending(struct emu_qp *e);

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr) {
    if (attr->qp_type != IBV_QPT_RC || !attr->send_cq || !attr->recv_cq || attr->srq
            || attr->cap.max_send_wr < 1 || attr->cap.max_send_wr > 8192 || attr->cap.max_recv_wr > 8192
            || attr->cap.max_send_sge > 30 || attr->cap.max_recv_sge > 8 || attr->cap.max_inline_data > 256) {
        errno = EINVAL;
        return NULL;
    }
    struct emu_qp *e = calloc(1, sizeof(*e));
    if (!e || !(e->rq = calloc(attr->cap.max_recv_wr > 0 ? attr->cap.max_recv_wr : 1, sizeof(struct emu_recv)))) {
        free(e);
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_init(&e->pending_lock, NULL);
    e->cap = attr->cap;
    e->sq_sig_all = attr->sq_sig_all;
    e->qp.context = pd->context;
    e->qp.qp_context = attr->qp_context;
    e->qp.pd = pd;
    e->qp.send_cq = attr->send_cq;
    e->qp.recv_cq = attr->recv_cq;
    e->qp.qp_type = IBV_QPT_RC;
    e->qp.state = IBV_QPS_RESET;
    pthread_mutex_lock(&qps_lock);
    int slot = -1;
    for (int i = 0; i < MAX_QPS; i++) {
        if (!qps[i]) {
            slot = i;
            qps[i] = e;
            break;
        }
    }
    pthread_mutex_unlock(&qps_lock);
    if (slot < 0) {
        free(e->rq);
        free(e);
        errno = ENOMEM;
        return NULL;
    }
    e->qp.qp_num = QPN_BASE + (uint32_t) slot;
    cq_uses(attr->send_cq, 1);
    cq_uses(attr->recv_cq, 1);
    pd_uses(pd, 1);
    return &e->qp;
}

static struct emu_qp *qp_by_num(uint32_t qp_num) {
    struct emu_qp *e = NULL;
    pthread_mutex_lock(&qps_lock);
    if (qp_num >= QPN_BASE && qp_num < QPN_BASE + MAX_QPS) {
        e = qps[qp_num - QPN_BASE];
    }
    pthread_mutex_unlock(&qps_lock);
    return e;
}

int ibv_destroy_qp(struct ibv_qp *qp) {
    struct emu_qp *e = (struct emu_qp *) qp;
    /* once no post or state change runs (of this QP, or of a peer that found it by number) it can go */
    pthread_rwlock_wrlock(&qps_life);
    pthread_mutex_lock(&qps_lock);
    qps[qp->qp_num - QPN_BASE] = NULL;
    pthread_mutex_unlock(&qps_lock);
    pthread_rwlock_unlock(&qps_life);
    while (e->pending_head) {
        struct emu_pending *p = e->pending_head;
        e->pending_head = p->next;
        free(p->inline_data);
        free(p);
    }
    pthread_mutex_destroy(&e->pending_lock);
    pthread_mutex_destroy(&e->lock);
    cq_uses(qp->send_cq, -1);
    cq_uses(qp->recv_cq, -1);
    pd_uses(qp->pd, -1);
    free(e->rq);
    free(e);
    return 0;
}

/* ERR: the posted receives complete flushed. Called with e->lock held. */
static void enter_error(struct emu_qp *e) {
    e->qp.state = IBV_QPS_ERR;
    while (e->rq_count > 0) {
        struct emu_recv *r = &e->rq[e->rq_head];
        cq_push(e->qp.recv_cq, r->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, e->qp.qp_num, 0, 0, 0);
        e->rq_head = (e->rq_head + 1) % (int) e->cap.max_recv_wr;
        e->rq_count--;
    }
}

#define REQUIRE(mask, needed) (((mask) & (needed)) == (needed))

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask) {
    struct emu_qp *e = (struct emu_qp *) qp;
    int rc = 0;
    pthread_rwlock_rdlock(&qps_life);
    pthread_mutex_lock(&e->lock);
    if (!(mask & IBV_QP_STATE)) {
        rc = EINVAL;
    } else if (attr->qp_state == IBV_QPS_ERR) {
        enter_error(e);
    } else if (attr->qp_state == IBV_QPS_RESET) {
        e->qp.state = IBV_QPS_RESET;
        e->rq_head = e->rq_count = 0;
    } else if (e->qp.state == IBV_QPS_RESET && attr->qp_state == IBV_QPS_INIT
            && REQUIRE(mask, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) && attr->port_num == 1) {
        e->access = (int) attr->qp_access_flags;
        e->qp.state = IBV_QPS_INIT;
    } else if (e->qp.state == IBV_QPS_INIT && attr->qp_state == IBV_QPS_RTR
            && REQUIRE(mask, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC
                       | IBV_QP_MIN_RNR_TIMER)) {
        e->dest_qp_num = attr->dest_qp_num;
        e->qp.state = IBV_QPS_RTR;
    } else if (e->qp.state == IBV_QPS_RTR && attr->qp_state == IBV_QPS_RTS
            && REQUIRE(mask, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN
                       | IBV_QP_MAX_QP_RD_ATOMIC)) {
        e->rnr_retry = attr->rnr_retry;
        e->qp.state = IBV_QPS_RTS;
    } else {
        rc = EINVAL;
    }
    int flush = e->qp.state == IBV_QPS_ERR;
    pthread_mutex_unlock(&e->lock);
    if (flush) {
        drain_pending(e); /* the waiting sends complete flushed (pending_head is read under pending_lock there) */
    }
    pthread_rwlock_unlock(&qps_life);
    return rc;
}

static int emu_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr) {
    struct emu_qp *e = (struct emu_qp *) qp;
    int rc = 0;
    pthread_rwlock_rdlock(&qps_life);
    pthread_mutex_lock(&e->lock);
    for (; wr; wr = wr->next) {
        if (e->qp.state == IBV_QPS_RESET || wr->num_sge < 0 || wr->num_sge > (int) e->cap.max_recv_sge
                || e->rq_count == (int) e->cap.max_recv_wr) {
            rc = e->rq_count == (int) e->cap.max_recv_wr ? ENOMEM : EINVAL;
            *bad_wr = wr;
            break;
        }
        if (e->qp.state == IBV_QPS_ERR) {
            cq_push(e->qp.recv_cq, wr->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, e->qp.qp_num, 0, 0, 0);
            continue;
        }
        struct emu_recv *r = &e->rq[(e->rq_head + e->rq_count) % (int) e->cap.max_recv_wr];
        r->wr_id = wr->wr_id;
        r->num_sge = wr->num_sge;
        memcpy(r->sge, wr->sg_list, sizeof(struct ibv_sge) * (size_t) wr->num_sge);
        e->rq_count++;
    }
    uint32_t dest = e->qp.state == IBV_QPS_RTR || e->qp.state == IBV_QPS_RTS ? e->dest_qp_num : 0;
    pthread_mutex_unlock(&e->lock);
    struct emu_qp *sender = dest ? qp_by_num(dest) : NULL;
    if (sender) {
        drain_pending(sender); /* the peer's RNR retry finds the receive (pending_head is read under its lock there) */
    }
    pthread_rwlock_unlock(&qps_life);
    return rc;
}

/* The bytes a send request gathers: its inline data or its SGEs, checked against the local regions. */
static int gather(struct emu_qp *e, struct ibv_send_wr *wr, uint8_t *out, uint32_t *len) {
    uint32_t n = 0;
    for (int i = 0; i < wr->num_sge; i++) {
        struct ibv_sge *s = &wr->sg_list[i];
        if (!(wr->send_flags & IBV_SEND_INLINE) && !mr_allows(e->qp.pd, s->lkey, 0, s->addr, s->length, 0)) {
            return IBV_WC_LOC_PROT_ERR;
        }
        if (n + s->length > (1U << 24)) {
            return IBV_WC_LOC_LEN_ERR;
        }
        memcpy(out + n, (void *) (uintptr_t) s->addr, s->length);
        n += s->length;
    }
    *len = n;
    return IBV_WC_SUCCESS;
}

/* Scatters len bytes into a posted receive; returns whether they fit. */
static int scatter(struct emu_recv *r, const uint8_t *in, uint32_t len) {
    uint32_t done = 0;
    for (int i = 0; i < r->num_sge && done < len; i++) {
        uint32_t take = len - done < r->sge[i].length ? len - done : r->sge[i].length;
        memcpy((void *) (uintptr_t) r->sge[i].addr, in + done, take);
        done += take;
    }
    return done == len;
}

/* What execute returns for a SEND that found no receive while its QP retries RNR forever: it waits. */
#define RNR_WAIT (-1)

/* A responder that detects a remote access violation NAKs the request and enters ERR itself (IB spec, C9-xx). */
static int responder_fails(struct emu_qp *responder, int status) {
    pthread_mutex_lock(&responder->lock);
    enter_error(responder);
    pthread_mutex_unlock(&responder->lock);
    return status;
}

/* Executes one request of a QP in RTS; returns the sender's completion status, or RNR_WAIT. Called with no QP lock
   held (the sender's pending_lock may be). */
static int execute(struct emu_qp *e, struct ibv_send_wr *wr, uint32_t *byte_len) {
    static __thread uint8_t *buf;
    if (!buf && !(buf = malloc(1U << 24))) {
        return IBV_WC_GENERAL_ERR;
    }
    struct emu_qp *peer = qp_by_num(e->dest_qp_num);
    if (!peer || (peer->qp.state != IBV_QPS_RTR && peer->qp.state != IBV_QPS_RTS)) {
        return IBV_WC_RETRY_EXC_ERR; /* nobody answers: the transport retries run out */
    }
    *byte_len = 0;
    if (wr->opcode == IBV_WR_RDMA_READ) {
        uint64_t total = 0;
        for (int i = 0; i < wr->num_sge; i++) {
            if (!mr_allows(e->qp.pd, wr->sg_list[i].lkey, 0, wr->sg_list[i].addr, wr->sg_list[i].length,
                           IBV_ACCESS_LOCAL_WRITE)) {
                return IBV_WC_LOC_PROT_ERR;
            }
            total += wr->sg_list[i].length;
        }
        if (!mr_allows(peer->qp.pd, wr->wr.rdma.rkey, 1, wr->wr.rdma.remote_addr, total, IBV_ACCESS_REMOTE_READ)) {
            return responder_fails(peer, IBV_WC_REM_ACCESS_ERR);
        }
        uint64_t at = wr->wr.rdma.remote_addr;
        for (int i = 0; i < wr->num_sge; i++) {
            memcpy((void *) (uintptr_t) wr->sg_list[i].addr, (void *) (uintptr_t) at, wr->sg_list[i].length);
            at += wr->sg_list[i].length;
        }
        *byte_len = (uint32_t) total;
        return IBV_WC_SUCCESS;
    }
    uint32_t len;
    int st = gather(e, wr, buf, &len);
    if (st != IBV_WC_SUCCESS) {
        return st;
    }
    *byte_len = len;
    if (wr->opcode == IBV_WR_RDMA_WRITE || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
        if (!mr_allows(peer->qp.pd, wr->wr.rdma.rkey, 1, wr->wr.rdma.remote_addr, len, IBV_ACCESS_REMOTE_WRITE)) {
            return responder_fails(peer, IBV_WC_REM_ACCESS_ERR);
        }
        memcpy((void *) (uintptr_t) wr->wr.rdma.remote_addr, buf, len);
        if (wr->opcode == IBV_WR_RDMA_WRITE) {
            return IBV_WC_SUCCESS;
        }
    } else if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) {
        return IBV_WC_LOC_QP_OP_ERR;
    }
    /* SEND, SEND_WITH_IMM, WRITE_WITH_IMM: the peer's oldest receive */
    int status = IBV_WC_SUCCESS;
    pthread_mutex_lock(&peer->lock);
    if (peer->rq_count == 0) {
        /* rnr_retry 7 retries forever: the send waits for a receive; a finite count runs out at once here */
        status = e->rnr_retry == 7 ? RNR_WAIT : IBV_WC_RNR_RETRY_EXC_ERR;
    } else {
        struct emu_recv *r = &peer->rq[peer->rq_head];
        peer->rq_head = (peer->rq_head + 1) % (int) peer->cap.max_recv_wr;
        peer->rq_count--;
        int imm = wr->opcode != IBV_WR_SEND;
        int write_imm = wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
        if (!write_imm && !scatter(r, buf, len)) {
            cq_push(peer->qp.recv_cq, r->wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, peer->qp.qp_num, 0, 0, 0);
            enter_error(peer);
            status = IBV_WC_REM_INV_REQ_ERR;
        } else {
            cq_push(peer->qp.recv_cq, r->wr_id, IBV_WC_SUCCESS, write_imm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV, len,
                    peer->qp.qp_num, (wr->send_flags & IBV_SEND_SOLICITED) != 0, imm, wr->imm_data);
        }
    }
    pthread_mutex_unlock(&peer->lock);
    return status;
}

static int send_opcode_wc(int opcode) {
    switch (opcode) {
        case IBV_WR_RDMA_WRITE:
        case IBV_WR_RDMA_WRITE_WITH_IMM:
            return IBV_WC_RDMA_WRITE;
        case IBV_WR_RDMA_READ:
            return IBV_WC_RDMA_READ;
        default:
            return IBV_WC_SEND;
    }
}

/* The sender's completion of a request that ran (or was flushed): errors always complete and put the QP in ERR. */
static void complete_send(struct emu_qp *e, struct ibv_send_wr *wr, int status, uint32_t byte_len) {
    int signaled = e->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
    if (status == IBV_WC_WR_FLUSH_ERR) {
        cq_push(e->qp.send_cq, wr->wr_id, status, send_opcode_wc(wr->opcode), 0, e->qp.qp_num, 0, 0, 0);
    } else if (status != IBV_WC_SUCCESS) {
        pthread_mutex_lock(&e->lock);
        cq_push(e->qp.send_cq, wr->wr_id, status, send_opcode_wc(wr->opcode), 0, e->qp.qp_num, 0, 0, 0);
        enter_error(e);
        pthread_mutex_unlock(&e->lock);
    } else if (signaled) {
        cq_push(e->qp.send_cq, wr->wr_id, IBV_WC_SUCCESS, send_opcode_wc(wr->opcode),
                wr->opcode == IBV_WR_RDMA_READ ? byte_len : 0, e->qp.qp_num, 0, 0, 0);
    }
}

/* Queues a copy of wr behind the sends already waiting; ENOMEM when the copy cannot be made (the post then fails
   with it, as a driver's does, rather than losing the request). Called with e->pending_lock held. */
static int enqueue(struct emu_qp *e, struct ibv_send_wr *wr) {
    struct emu_pending *p = calloc(1, sizeof(*p));
    if (!p) {
        return ENOMEM;
    }
    p->wr = *wr;
    p->wr.next = NULL;
    p->wr.sg_list = p->sge;
    memcpy(p->sge, wr->sg_list, sizeof(struct ibv_sge) * (size_t) wr->num_sge);
    if (wr->send_flags & IBV_SEND_INLINE) {
        /* inline: the caller may reuse its buffer once the post returns, so the bytes are taken now */
        uint32_t len = 0;
        for (int i = 0; i < wr->num_sge; i++) {
            len += wr->sg_list[i].length;
        }
        p->inline_data = malloc(len > 0 ? len : 1);
        if (!p->inline_data) {
            free(p);
            return ENOMEM;
        }
        uint32_t at = 0;
        for (int i = 0; i < wr->num_sge; i++) {
            memcpy(p->inline_data + at, (void *) (uintptr_t) wr->sg_list[i].addr, wr->sg_list[i].length);
            at += wr->sg_list[i].length;
        }
        p->wr.num_sge = 1;
        p->sge[0].addr = (uintptr_t) p->inline_data;
        p->sge[0].length = len;
    }
    if (e->pending_tail) {
        e->pending_tail->next = p;
    } else {
        e->pending_head = p;
    }
    e->pending_tail = p;
    e->pending_count++;
    return 0;
}

/* Runs the sends waiting for the peer's receives, in order, as far as its receives go; flushes them once in ERR. */
static void drain_pending(struct emu_qp *e) {
    pthread_mutex_lock(&e->pending_lock);
    while (e->pending_head) {
        struct emu_pending *p = e->pending_head;
        uint32_t byte_len = 0;
        int status = IBV_WC_WR_FLUSH_ERR;
        if (e->qp.state != IBV_QPS_ERR) {
            status = execute(e, &p->wr, &byte_len);
            if (status == RNR_WAIT) {
                break;
            }
        }
        e->pending_head = p->next;
        if (!e->pending_head) {
            e->pending_tail = NULL;
        }
        e->pending_count--;
        complete_send(e, &p->wr, status, byte_len);
        free(p->inline_data);
        free(p);
    }
    pthread_mutex_unlock(&e->pending_lock);
}

/* Flushes the sends q has waiting once it is in ERR. A QP can enter ERR where its pending_lock may not be taken (as
   the responder of a failed request, under the requester's pending_lock), so the posting entry points call this
   afterwards, holding no lock. */
static void flush_if_error(struct emu_qp *q) {
    pthread_mutex_lock(&q->lock);
    int error = q->qp.state == IBV_QPS_ERR;
    pthread_mutex_unlock(&q->lock);
    if (error) {
        drain_pending(q); /* reads pending_head under pending_lock */
    }
}

static int post_sends(struct emu_qp *e, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr) {
    for (; wr; wr = wr->next) {
        uint32_t inline_len = 0;
        for (int i = 0; i < wr->num_sge && (wr->send_flags & IBV_SEND_INLINE); i++) {
            inline_len += wr->sg_list[i].length;
        }
        if (e->qp.state == IBV_QPS_RESET || e->qp.state == IBV_QPS_INIT || e->qp.state == IBV_QPS_RTR
                || wr->num_sge < 0 || wr->num_sge > (int) e->cap.max_send_sge || inline_len > e->cap.max_inline_data) {
            *bad_wr = wr;
            return EINVAL;
        }
        pthread_mutex_lock(&e->pending_lock);
        if (e->pending_count >= (int) e->cap.max_send_wr) {
            /* the send queue holds max_send_wr requests not yet completed: the waiting ones are */
            pthread_mutex_unlock(&e->pending_lock);
            *bad_wr = wr;
            return ENOMEM;
        }
        if (e->pending_head) {
            int rc = enqueue(e, wr); /* RC keeps order: behind the sends that wait */
            pthread_mutex_unlock(&e->pending_lock);
            if (rc) {
                *bad_wr = wr;
                return rc;
            }
            continue;
        }
        pthread_mutex_unlock(&e->pending_lock);
        if (e->qp.state == IBV_QPS_ERR) {
            complete_send(e, wr, IBV_WC_WR_FLUSH_ERR, 0);
            continue;
        }
        uint32_t byte_len = 0;
        int status = execute(e, wr, &byte_len);
        if (status == RNR_WAIT) {
            pthread_mutex_lock(&e->pending_lock);
            int rc = enqueue(e, wr);
            pthread_mutex_unlock(&e->pending_lock);
            if (rc) {
                *bad_wr = wr;
                return rc;
            }
            drain_pending(e); /* a receive the peer posted meanwhile found nothing waiting yet */
            continue;
        }
        complete_send(e, wr, status, byte_len);
    }
    return 0;
}

static int emu_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr) {
    struct emu_qp *e = (struct emu_qp *) qp;
    pthread_rwlock_rdlock(&qps_life);
    int rc = post_sends(e, wr, bad_wr);
    /* a request that failed put this QP, or the peer as its responder, in ERR: what either has waiting is flushed */
    flush_if_error(e);
    struct emu_qp *peer = e->dest_qp_num ? qp_by_num(e->dest_qp_num) : NULL;
    if (peer) {
        flush_if_error(peer);
    }
    pthread_rwlock_unlock(&qps_life);
    return rc;
}

/*
 * The connection manager (librdmacm), in this process: every IPv4 address is on an emulated device (emu0, or with
 * -DDEVICES=n the one cm_verbs names; 0.0.0.0 on none), listeners are
 * found by port, and each step answers at once with the event rdma-core would give, queued on the id's event
 * channel (a pipe: one byte per event, so rdma_get_cm_event blocks on a real descriptor). The server side of a
 * connection is a new id, announced by CONNECT_REQUEST with the client's private data; rdma_accept moves both queue
 * pairs to RTS and gives both sides ESTABLISHED (the server's first; the client's with the server's private data);
 * rdma_reject gives the client REJECTED with the server's private data (EINVAL once established); a connect to a port
 * nobody listens on gives UNREACHABLE; rdma_disconnect moves both queue pairs to ERR and gives each side DISCONNECTED
 * once. What links two ids (peer) is read and changed under cm_lock.
 */
#define MAX_PDATA 256
#define MAX_LISTENERS 64

struct emu_cm_channel {
    struct rdma_event_channel channel; /* first: the provider sees a struct rdma_event_channel */
    int write_fd;
    pthread_mutex_t lock;
    struct emu_cm_event *head;
    struct emu_cm_event *tail;
};

struct emu_cm_event {
    struct rdma_cm_event event; /* first */
    struct emu_cm_event *next;
    uint8_t pdata[MAX_PDATA];
};

struct emu_cm_id {
    struct rdma_cm_id id; /* first */
    int listening;
    uint8_t connect_rnr_retry; /* of the client's rdma_connect: the server's queue pair retries RNR that often */
    struct emu_cm_id *peer;
    int connected;
    int disconnected;
    uint8_t pdata[MAX_PDATA];
    uint8_t pdata_len;
};

static struct emu_cm_id *listeners[MAX_LISTENERS];
static pthread_mutex_t cm_lock = PTHREAD_MUTEX_INITIALIZER;
static uint16_t next_port = 20000;
#define CM_DEVICES (DEVICES > 1 ? DEVICES : 1)
static struct ibv_context *cm_contexts[CM_DEVICES];

/* The device an IPv4 address is on: with several devices 127.0.0.1 is emu0's, 127.0.0.2 emu1's and so on (the last
   byte, less one, modulo their number); with one, every address is emu0's. The wildcard address is on none: rdma_cm
   leaves an id bound to it without a device (id->verbs NULL), and its requests arrive on the device that got them. */
static struct ibv_context *cm_verbs(const struct sockaddr_in *sin) {
    if (sin->sin_addr.s_addr == htonl(INADDR_ANY)) {
        return NULL;
    }
    int index = CM_DEVICES > 1 ? (int) ((ntohl(sin->sin_addr.s_addr) & 0xff) + CM_DEVICES - 1) % CM_DEVICES : 0;
    pthread_mutex_lock(&cm_lock);
    if (!cm_contexts[index]) {
        static struct emu_device cm_devices[CM_DEVICES];
        snprintf(cm_devices[index].device.name, sizeof(cm_devices[index].device.name), "emu%d", index);
        cm_contexts[index] = ibv_open_device(&cm_devices[index].device);
    }
    pthread_mutex_unlock(&cm_lock);
    return cm_contexts[index];
}

struct rdma_event_channel *rdma_create_event_channel(void) {
    struct emu_cm_channel *c = calloc(1, sizeof(*c));
    int fds[2];
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    if (pipe(fds) != 0) {
        free(c);
        return NULL;
    }
    c->channel.fd = fds[0];
    c->write_fd = fds[1];
    pthread_mutex_init(&c->lock, NULL);
    return &c->channel;
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel) {
    struct emu_cm_channel *c = (struct emu_cm_channel *) channel;
    close(c->channel.fd);
    close(c->write_fd);
    while (c->head) {
        struct emu_cm_event *e = c->head;
        c->head = e->next;
        free(e);
    }
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static void queue_event(struct emu_cm_id *id, enum rdma_cm_event_type type, int status, struct emu_cm_id *listen_id,
                        const void *pdata, uint8_t pdata_len) {
    struct emu_cm_channel *c = (struct emu_cm_channel *) id->id.channel;
    struct emu_cm_event *e = calloc(1, sizeof(*e));
    if (!e) {
        return;
    }
    e->event.id = &id->id;
    e->event.listen_id = listen_id ? &listen_id->id : NULL;
    e->event.event = type;
    e->event.status = status;
    if (pdata_len) {
        memcpy(e->pdata, pdata, pdata_len);
        e->event.param.conn.private_data = e->pdata;
        e->event.param.conn.private_data_len = pdata_len;
    }
    if (id->id.qp) {
        e->event.param.conn.qp_num = id->id.qp->qp_num;
    }
    pthread_mutex_lock(&c->lock);
    if (c->tail) {
        c->tail->next = e;
    } else {
        c->head = e;
    }
    c->tail = e;
    pthread_mutex_unlock(&c->lock);
    char one = 1;
    ssize_t w = write(c->write_fd, &one, 1);
    (void) w;
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event) {
    struct emu_cm_channel *c = (struct emu_cm_channel *) channel;
    char one;
    if (read(c->channel.fd, &one, 1) != 1) {
        errno = EBADF;
        return -1;
    }
    pthread_mutex_lock(&c->lock);
    struct emu_cm_event *e = c->head;
    c->head = e->next;
    if (!c->head) {
        c->tail = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    *event = &e->event;
    return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *event) {
    free(event);
    return 0;
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context, enum rdma_port_space ps) {
    struct emu_cm_id *e = calloc(1, sizeof(*e));
    if (!e) {
        errno = ENOMEM;
        return -1;
    }
    e->id.channel = channel;
    e->id.context = context;
    e->id.ps = ps;
    e->id.qp_type = IBV_QPT_RC;
    *id = &e->id;
    return 0;
}

static uint16_t port_of(const struct sockaddr_in *sin) {
    return ntohs(sin->sin_port);
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr) {
    struct sockaddr_in *sin = (struct sockaddr_in *) addr;
    if (sin->sin_family != AF_INET) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    pthread_mutex_lock(&cm_lock);
    uint16_t port = port_of(sin);
    for (int i = 0; i < MAX_LISTENERS && port; i++) {
        if (listeners[i] && port_of(&listeners[i]->id.route.addr.src_sin) == port) {
            pthread_mutex_unlock(&cm_lock);
            errno = EADDRINUSE;
            return -1;
        }
    }
    if (!port) {
        port = next_port++;
    }
    pthread_mutex_unlock(&cm_lock);
    id->route.addr.src_sin = *sin;
    id->route.addr.src_sin.sin_port = htons(port);
    id->verbs = cm_verbs(sin);
    id->port_num = 1;
    return 0;
}

int rdma_listen(struct rdma_cm_id *id, int backlog) {
    (void) backlog;
    struct emu_cm_id *e = (struct emu_cm_id *) id;
    pthread_mutex_lock(&cm_lock);
    for (int i = 0; i < MAX_LISTENERS; i++) {
        if (!listeners[i]) {
            listeners[i] = e;
            e->listening = 1;
            break;
        }
    }
    pthread_mutex_unlock(&cm_lock);
    if (!e->listening) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr, int timeout_ms) {
    (void) timeout_ms;
    if (dst_addr->sa_family != AF_INET) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    if (src_addr) {
        id->route.addr.src_sin = *(struct sockaddr_in *) src_addr;
    } else {
        id->route.addr.src_sin.sin_family = AF_INET;
        id->route.addr.src_sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    pthread_mutex_lock(&cm_lock);
    id->route.addr.src_sin.sin_port = htons(next_port++);
    pthread_mutex_unlock(&cm_lock);
    id->route.addr.dst_sin = *(struct sockaddr_in *) dst_addr;
    id->verbs = cm_verbs(&id->route.addr.dst_sin); /* the device the route to the destination leaves through */
    id->port_num = 1;
    queue_event((struct emu_cm_id *) id, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL, NULL, 0);
    return 0;
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms) {
    (void) timeout_ms;
    queue_event((struct emu_cm_id *) id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL, NULL, 0);
    return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr) {
    if (pd->context != id->verbs) {
        errno = EINVAL; /* the PD must be of the id's device */
        return -1;
    }
    struct ibv_qp *qp = ibv_create_qp(pd, attr);
    if (!qp) {
        return -1;
    }
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    id->qp = qp;
    return 0;
}

void rdma_destroy_qp(struct rdma_cm_id *id) {
    pthread_mutex_lock(&cm_lock); /* a peer's rdma_accept or rdma_disconnect reaches this queue pair under it */
    if (id->qp) {
        ibv_destroy_qp(id->qp);
        id->qp = NULL;
    }
    pthread_mutex_unlock(&cm_lock);
}

static void to_rts(struct ibv_qp *qp, uint32_t dest, uint8_t rnr_retry) {
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    a.rnr_retry = rnr_retry;
    a.qp_state = IBV_QPS_RTR;
    a.dest_qp_num = dest;
    a.path_mtu = IBV_MTU_1024;
    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
                  | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    a.qp_state = IBV_QPS_RTS;
    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN
                  | IBV_QP_MAX_QP_RD_ATOMIC);
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param) {
    struct emu_cm_id *client = (struct emu_cm_id *) id;
    if (!id->qp || (param && param->private_data_len > MAX_PDATA - 36)) {
        errno = EINVAL;
        return -1;
    }
    struct emu_cm_id *listener = NULL;
    pthread_mutex_lock(&cm_lock);
    for (int i = 0; i < MAX_LISTENERS; i++) {
        if (listeners[i] && port_of(&listeners[i]->id.route.addr.src_sin) == port_of(&id->route.addr.dst_sin)) {
            listener = listeners[i];
        }
    }
    pthread_mutex_unlock(&cm_lock);
    if (!listener) {
        queue_event(client, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, NULL, 0);
        return 0;
    }
    struct emu_cm_id *server;
    struct rdma_cm_id *sid;
    if (rdma_create_id(listener->id.channel, &sid, listener->id.context, listener->id.ps) != 0) {
        return -1;
    }
    server = (struct emu_cm_id *) sid;
    /* a listener bound to an address gets requests on its device; one bound to the wildcard on every device */
    server->id.verbs = listener->id.verbs ? listener->id.verbs : cm_verbs(&id->route.addr.dst_sin);
    server->id.port_num = 1;
    server->id.route.addr.src_sin = listener->id.route.addr.src_sin;
    server->id.route.addr.dst_sin = id->route.addr.src_sin;
    server->peer = client;
    client->peer = server;
    client->connect_rnr_retry = param ? param->rnr_retry_count : 7;
    uint8_t len = param ? param->private_data_len : 0;
    queue_event(server, RDMA_CM_EVENT_CONNECT_REQUEST, 0, listener, param ? param->private_data : NULL, len);
    return 0;
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param) {
    struct emu_cm_id *server = (struct emu_cm_id *) id;
#ifdef ACCEPT_FAILS
    (void) server;
    (void) param;
    errno = ENOMEM; /* as when the kernel cannot send the reply: the request stays unanswered */
    return -1;
#endif
    pthread_mutex_lock(&cm_lock); /* the client's id may be destroyed meanwhile: rdma_destroy_id unlinks it under it */
    struct emu_cm_id *client = server->peer;
    if (!id->qp || !client || !client->id.qp) {
        pthread_mutex_unlock(&cm_lock);
        errno = EINVAL;
        return -1;
    }
    /* rdma_connect(3): rnr_retry_count is for "a send operation from the remote peer": the connect's configures the
       server's queue pair, the accept's the client's */
    to_rts(id->qp, client->id.qp->qp_num, client->connect_rnr_retry);
    to_rts(client->id.qp, id->qp->qp_num, param ? param->rnr_retry_count : 7);
    server->connected = client->connected = 1;
    /* the server's first: the client may disconnect as soon as it has its ESTABLISHED, and a server sees its own
       (the IB CM's RTU) before the client's DREQ */
    queue_event(server, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, NULL, 0);
    queue_event(client, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, param ? param->private_data : NULL,
                param ? param->private_data_len : 0);
    pthread_mutex_unlock(&cm_lock);
    return 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len) {
    struct emu_cm_id *server = (struct emu_cm_id *) id;
    pthread_mutex_lock(&cm_lock); /* the client, woken by its REJECTED, may destroy its id at once */
    struct emu_cm_id *client = server->peer;
    if (!client || server->connected) { /* the IB CM sends no REJ once the connection is established */
        pthread_mutex_unlock(&cm_lock);
        errno = EINVAL;
        return -1;
    }
    client->peer = NULL;
    server->peer = NULL;
    queue_event(client, RDMA_CM_EVENT_REJECTED, 28 /* IB_CM_REJ_CONSUMER_DEFINED */, NULL, private_data,
                private_data_len);
    pthread_mutex_unlock(&cm_lock);
    return 0;
}

static void disconnect_one(struct emu_cm_id *e) {
    if (e->connected && !e->disconnected) {
        e->disconnected = 1;
        if (e->id.qp) {
            struct ibv_qp_attr a;
            memset(&a, 0, sizeof(a));
            a.qp_state = IBV_QPS_ERR;
            ibv_modify_qp(e->id.qp, &a, IBV_QP_STATE);
        }
        queue_event(e, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, NULL, 0);
    }
}

int rdma_disconnect(struct rdma_cm_id *id) {
    struct emu_cm_id *e = (struct emu_cm_id *) id;
    pthread_mutex_lock(&cm_lock);
    if (!e->connected) {
        pthread_mutex_unlock(&cm_lock);
        errno = EINVAL;
        return -1;
    }
    disconnect_one(e);
    if (e->peer) {
        disconnect_one(e->peer);
    }
    pthread_mutex_unlock(&cm_lock);
    return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id) {
    struct emu_cm_id *e = (struct emu_cm_id *) id;
    pthread_mutex_lock(&cm_lock);
    for (int i = 0; i < MAX_LISTENERS; i++) {
        if (listeners[i] == e) {
            listeners[i] = NULL;
        }
    }
    if (e->peer) {
        e->peer->peer = NULL;
    }
    pthread_mutex_unlock(&cm_lock);
    free(e);
    return 0;
}

/*
 * Injects an event on a connected id as the kernel would raise it: RDMA_CM_EVENT_ADDR_CHANGE (the address moved,
 * say a bonding failover; the connection stays up) or RDMA_CM_EVENT_DEVICE_REMOVAL (the device is going: its queue
 * pair enters ERR, and the application must destroy its ids). Returns 0, or EINVAL for another event.
 */
int emu_inject_cm_event(struct rdma_cm_id *id, int type) {
    struct emu_cm_id *e = (struct emu_cm_id *) id;
    if (type != RDMA_CM_EVENT_ADDR_CHANGE && type != RDMA_CM_EVENT_DEVICE_REMOVAL) {
        return EINVAL;
    }
    if (type == RDMA_CM_EVENT_DEVICE_REMOVAL && id->qp) {
        struct ibv_qp_attr a;
        memset(&a, 0, sizeof(a));
        a.qp_state = IBV_QPS_ERR;
        ibv_modify_qp(id->qp, &a, IBV_QP_STATE);
    }
    queue_event(e, (enum rdma_cm_event_type) type, 0, NULL, NULL, 0);
    return 0;
}
