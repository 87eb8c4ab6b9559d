/* Native side of the service family; see service.h for the contract.
 *
 * The whole state of a generator is its last id: sv_next reads it, works
 * out the next one from it and the clock, and publishes that with one
 * compare-and-swap, retrying if another thread got there first.  So no id
 * is handed out twice and every id exceeds the one before, whatever the
 * number of threads; the clock going backwards only makes ids come from
 * the last tick seen. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "service.h"

#if defined(__linux__)
#define SV_MMSG 1 /* sendmmsg/recvmmsg: Linux >= 3.0, glibc >= 2.14 */
#else
#define SV_MMSG 0
#endif

#define SV_EPOCH 1577836800000LL /* 2020-01-01T00:00:00Z */
#define SV_ID_BITS 63

struct sv_gen {
    long long last __attribute__((aligned(64)));
    long long errors __attribute__((aligned(64)));
    long long node_bits_value; /* node << seq_bits */
    long long seq_mask;
    int shift;                 /* bits below the tick */
    long tick_ms;
    int capped;
};

sv_gen *
sv_new(long node, long seq_bits, long tick_ms, int capped)
{
    sv_gen *gen;
    if (node < 0 || node >= (1L << SV_NODE_BITS) || seq_bits < 1
        || seq_bits > SV_ID_BITS - SV_NODE_BITS - 20 || tick_ms < 1)
        return NULL;
    gen = calloc(1, sizeof(*gen));
    if (gen == NULL)
        return NULL;
    gen->node_bits_value = (long long)node << seq_bits;
    gen->seq_mask = (1LL << seq_bits) - 1;
    gen->shift = (int)(SV_NODE_BITS + seq_bits);
    gen->tick_ms = tick_ms;
    gen->capped = capped;
    return gen;
}

void
sv_free(sv_gen *gen)
{
    free(gen);
}

static long long
sv_tick(const sv_gen *gen)
{
    struct timespec now;
    long long ms;
    clock_gettime(CLOCK_REALTIME, &now);
    ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    return (ms - SV_EPOCH) / gen->tick_ms;
}

long long
sv_next(sv_gen *gen)
{
    long long now = sv_tick(gen);
    long long last = __atomic_load_n(&gen->last, __ATOMIC_ACQUIRE);
    long long next, tick;
    for (;;) {
        tick = last >> gen->shift;
        if (now > tick)
            next = (now << gen->shift) | gen->node_bits_value;
        else if ((last & gen->seq_mask) < gen->seq_mask)
            next = last + 1;
        else if (gen->capped) {
            __atomic_add_fetch(&gen->errors, 1, __ATOMIC_RELAXED);
            return -1;
        } else /* borrow the next tick */
            next = ((tick + 1) << gen->shift) | gen->node_bits_value;
        if (__atomic_compare_exchange_n(&gen->last, &last, next, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return next;
    }
}

long long
sv_errors(sv_gen *gen)
{
    return __atomic_load_n(&gen->errors, __ATOMIC_RELAXED);
}

long long
sv_epoch_ms(void)
{
    return SV_EPOCH;
}


/* --- the load generator (see service.h) ---------------------------------
 *
 * Flow f's k-th request takes window slot k % window, and is sent only
 * once that slot is free: the requests in flight on a flow are always
 * within one window of sequence numbers, so a reply's tag says which
 * request it answers, and a slot's k tells an answer from a late reply to
 * a request already counted lost. */

#define SV_REQUEST_BYTES 4
#define SV_REPLY_BYTES 12
#define SV_BUFFER 16 /* a longer datagram is truncated and skipped */
#define SV_BATCH 64

typedef struct {
    int fd;
    uint32_t base;   /* tag of k = 0 */
    long count;      /* requests on this flow */
    long next;       /* next k to send */
    long *slot;      /* window entries: k in flight, or -1 */
    long long *sent; /* window entries: when (ns) */
    long long *ids;
    long *received;
} sv_flow;

typedef struct {
    long window;
    long long timeout_ns;
    long done;       /* answered or lost */
    long silent;     /* lost since the last answer */
    long *lost;
} sv_load;

static long long
sv_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static void
sv_put32(unsigned char *out, uint32_t value)
{
    out[0] = (unsigned char)(value >> 24);
    out[1] = (unsigned char)(value >> 16);
    out[2] = (unsigned char)(value >> 8);
    out[3] = (unsigned char)value;
}

static uint64_t
sv_get(const unsigned char *in, int bytes)
{
    uint64_t value = 0;
    int i;
    for (i = 0; i < bytes; i++)
        value = (value << 8) | in[i];
    return value;
}

/* Send to the batch's datagrams; 0 or an errno value. */
static int
sv_send(int fd, unsigned char (*buffers)[SV_BUFFER], int count)
{
#if SV_MMSG
    struct mmsghdr msgs[SV_BATCH];
    struct iovec iov[SV_BATCH];
    int i, done = 0, sent;
    memset(msgs, 0, sizeof(msgs[0]) * count);
    for (i = 0; i < count; i++) {
        iov[i].iov_base = buffers[i];
        iov[i].iov_len = SV_REQUEST_BYTES;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    while (done < count) {
        sent = sendmmsg(fd, msgs + done, count - done, 0);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        done += sent;
    }
#else
    int i;
    for (i = 0; i < count; i++)
        while (send(fd, buffers[i], SV_REQUEST_BYTES, 0) < 0)
            if (errno != EINTR)
                return errno;
#endif
    return 0;
}

/* Fill the flow's window; 0 or an errno value. */
static int
sv_fill(sv_flow *flow, sv_load *load, long long now)
{
    unsigned char buffers[SV_BATCH][SV_BUFFER];
    int count = 0, err;
    long index;
    while (flow->next < flow->count) {
        index = flow->next % load->window;
        if (flow->slot[index] >= 0)
            break;
        flow->slot[index] = flow->next;
        flow->sent[index] = now;
        sv_put32(buffers[count++], flow->base + (uint32_t)flow->next);
        flow->next++;
        if (count == SV_BATCH) {
            if ((err = sv_send(flow->fd, buffers, count)) != 0)
                return err;
            count = 0;
        }
    }
    return count ? sv_send(flow->fd, buffers, count) : 0;
}

/* One datagram from the flow's socket: an answer takes its slot. */
static void
sv_take(sv_flow *flow, sv_load *load, const unsigned char *reply,
        size_t length)
{
    long k, index;
    if (length != SV_REPLY_BYTES)
        return;
    k = (long)(uint32_t)((uint32_t)sv_get(reply, 4) - flow->base);
    if (k >= flow->count)
        return;
    index = k % load->window;
    if (flow->slot[index] != k)
        return; /* late: counted lost already */
    flow->slot[index] = -1;
    flow->ids[(*flow->received)++] = (long long)sv_get(reply + 4, 8);
    load->done++;
    load->silent = 0;
}

/* Every datagram waiting on the flow's socket; 0 or an errno value. */
static int
sv_drain(sv_flow *flow, sv_load *load)
{
    unsigned char buffers[SV_BATCH][SV_BUFFER];
#if SV_MMSG
    struct mmsghdr msgs[SV_BATCH];
    struct iovec iov[SV_BATCH];
    int i, got;
    for (i = 0; i < SV_BATCH; i++) {
        iov[i].iov_base = buffers[i];
        iov[i].iov_len = SV_BUFFER;
    }
    for (;;) {
        memset(msgs, 0, sizeof(msgs));
        for (i = 0; i < SV_BATCH; i++) {
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        got = recvmmsg(flow->fd, msgs, SV_BATCH, MSG_DONTWAIT, NULL);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : errno;
        }
        for (i = 0; i < got; i++)
            sv_take(flow, load, buffers[i], msgs[i].msg_len);
        if (got < SV_BATCH)
            return 0;
    }
#else
    ssize_t got;
    for (;;) {
        got = recv(flow->fd, buffers[0], SV_BUFFER, MSG_DONTWAIT);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : errno;
        }
        sv_take(flow, load, buffers[0], (size_t)got);
    }
#endif
}

/* Count requests in flight for timeout_ns as lost; the ms until the next
 * one would be (at least 1), or 0 when none is in flight. */
static int
sv_expire(sv_flow *flows, long nflows, sv_load *load, long long now)
{
    long long next = -1, due;
    long f, i;
    for (f = 0; f < nflows; f++)
        for (i = 0; i < load->window; i++) {
            if (flows[f].slot[i] < 0)
                continue;
            due = flows[f].sent[i] + load->timeout_ns;
            if (due <= now) {
                flows[f].slot[i] = -1;
                (*load->lost)++;
                load->done++;
                load->silent++;
            } else if (next < 0 || due < next)
                next = due;
        }
    return next < 0 ? 0 : (int)((next - now) / 1000000 + 1);
}

long
sv_drive(const int *fds, long nflows, long requests, long window,
         unsigned int first_tag, long timeout_ms, long max_silent,
         long long *ids, long *received, long *lost)
{
    sv_flow *flows;
    struct pollfd *polls;
    long *slots;
    long long *sent;
    sv_load load;
    long f, stride, rc = 0;
    int wait_ms;

    if (nflows < 1 || window < 1 || requests < 0 || timeout_ms < 1)
        return EINVAL;
    stride = (requests + nflows - 1) / nflows;
    flows = calloc(nflows, sizeof(*flows));
    polls = calloc(nflows, sizeof(*polls));
    slots = malloc(sizeof(*slots) * nflows * window);
    sent = calloc(nflows * window, sizeof(*sent));
    if (!flows || !polls || !slots || !sent) {
        rc = ENOMEM;
        goto done;
    }
    load.window = window;
    load.timeout_ns = (long long)timeout_ms * 1000000LL;
    load.done = load.silent = 0;
    load.lost = lost;
    *lost = 0;
    for (f = 0; f < nflows; f++) {
        flows[f].fd = polls[f].fd = fds[f];
        polls[f].events = POLLIN;
        flows[f].base = first_tag + (uint32_t)(f * stride);
        flows[f].count = requests / nflows + (f < requests % nflows);
        flows[f].slot = slots + f * window;
        flows[f].sent = sent + f * window;
        flows[f].ids = ids + f * stride;
        flows[f].received = received + f;
        received[f] = 0;
    }
    for (f = 0; f < nflows * window; f++)
        slots[f] = -1;
    while (load.done < requests) {
        long long now = sv_now_ns();
        for (f = 0; f < nflows; f++)
            if ((rc = sv_fill(&flows[f], &load, now)) != 0)
                goto done;
        wait_ms = sv_expire(flows, nflows, &load, now);
        if (load.silent >= max_silent) {
            rc = -1;
            goto done;
        }
        if (load.done >= requests)
            break;
        if (poll(polls, (nfds_t)nflows, wait_ms) < 0) {
            if (errno == EINTR)
                continue;
            rc = errno;
            goto done;
        }
        for (f = 0; f < nflows; f++)
            if (polls[f].revents && (rc = sv_drain(&flows[f], &load)) != 0)
                goto done;
    }
done:
    free(flows);
    free(polls);
    free(slots);
    free(sent);
    return rc;
}


/* --- the native echo server (see service.h) -----------------------------
 *
 * The Python echo server's loop in C: poll() with a timeout stands in for
 * its SO_RCVTIMEO, so the same idle, lifetime and orphan checks end it. */

/* The echo counter's k-th id (k from 1), as _service_ids.EchoCounter lays
 * it out: k where the tick goes, the node, sequence 0. */
static long long
sv_echo_id(long node, long long k)
{
    return (k << (SV_NODE_BITS + SV_SEQ_BITS))
           | ((long long)node << SV_SEQ_BITS);
}

/* Answer every request waiting on fd (at most a batch per call); the
 * number answered, or -errno. */
static long
sv_echo_batch(int fd, long node, long long *count)
{
    unsigned char in[SV_BATCH][SV_BUFFER], out[SV_BATCH][SV_REPLY_BYTES];
    struct sockaddr_storage from[SV_BATCH];
    socklen_t from_len[SV_BATCH];
    size_t length[SV_BATCH];
    long long id;
    int i, j, got = 0, answers = 0;
#if SV_MMSG
    struct mmsghdr msgs[SV_BATCH];
    struct iovec iov[SV_BATCH];
    memset(msgs, 0, sizeof(msgs));
    for (i = 0; i < SV_BATCH; i++) {
        iov[i].iov_base = in[i];
        iov[i].iov_len = SV_BUFFER;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = &from[i];
        msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
    }
    do
        got = recvmmsg(fd, msgs, SV_BATCH, MSG_DONTWAIT, NULL);
    while (got < 0 && errno == EINTR);
    for (i = 0; i < got; i++) {
        length[i] = msgs[i].msg_len;
        from_len[i] = msgs[i].msg_hdr.msg_namelen;
    }
#else
    ssize_t one;
    for (; got < SV_BATCH; got++) {
        from_len[got] = sizeof(from[got]);
        one = recvfrom(fd, in[got], SV_BUFFER, MSG_DONTWAIT,
                       (struct sockaddr *)&from[got], &from_len[got]);
        if (one < 0 && errno == EINTR) {
            got--;
            continue;
        }
        if (one < 0)
            break;
        length[got] = (size_t)one;
    }
    if (got == 0)
        got = -1;
#endif
    if (got < 0)
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
    /* A runt has no tag to answer; answers are compacted in place. */
    for (i = 0; i < got; i++) {
        if (length[i] < SV_REQUEST_BYTES)
            continue;
        id = sv_echo_id(node, ++*count);
        memcpy(out[answers], in[i], SV_REQUEST_BYTES);
        for (j = 0; j < 8; j++)
            out[answers][SV_REQUEST_BYTES + j] =
                (unsigned char)((uint64_t)id >> (56 - 8 * j));
        if (answers != i) {
            from[answers] = from[i];
            from_len[answers] = from_len[i];
        }
        answers++;
    }
#if SV_MMSG
    for (i = 0; i < answers; i++) {
        iov[i].iov_base = out[i];
        iov[i].iov_len = SV_REPLY_BYTES;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_name = &from[i];
        msgs[i].msg_hdr.msg_namelen = from_len[i];
    }
    for (i = 0; i < answers; i += got) {
        got = sendmmsg(fd, msgs + i, answers - i, 0);
        if (got < 0) {
            if (errno != EINTR)
                return -errno;
            got = 0;
        }
    }
#else
    for (i = 0; i < answers; i++)
        while (sendto(fd, out[i], SV_REPLY_BYTES, 0,
                      (struct sockaddr *)&from[i], from_len[i]) < 0)
            if (errno != EINTR)
                return -errno;
#endif
    return answers;
}

long
sv_serve(int fd, long node, long parent, long poll_ms, long idle_ms,
         long lifetime_ms, long long *served)
{
    struct pollfd waiting;
    long long deadline, idle_since, now, checked = 0;
    long answered;
    int ready;

    if (node < 0 || node >= (1L << SV_NODE_BITS) || poll_ms < 1)
        return EINVAL;
    *served = 0;
    waiting.fd = fd;
    waiting.events = POLLIN;
    now = sv_now_ns();
    deadline = now + (long long)lifetime_ms * 1000000LL;
    idle_since = now;
    for (;;) {
        ready = poll(&waiting, 1, (int)poll_ms);
        if (ready < 0 && errno != EINTR)
            return errno;
        now = sv_now_ns();
        if (ready <= 0) {
            /* The Python loop's checks, after each idle poll. */
            if ((long)getppid() != parent)
                return SV_ORPHANED;
            if (now > deadline)
                return SV_LIFETIME;
            if (now - idle_since >= (long long)idle_ms * 1000000LL)
                return SV_IDLE;
            continue;
        }
        answered = sv_echo_batch(fd, node, served);
        if (answered < 0)
            return -answered;
        if (answered > 0)
            idle_since = now;
        /* As the Python loop: a busy server checks its lifetime (and here
         * its parent) every 4096 requests. */
        if (*served - checked >= 4096) {
            checked = *served;
            if (now > deadline)
                return SV_LIFETIME;
            if ((long)getppid() != parent)
                return SV_ORPHANED;
        }
    }
}

int
sv_batched(void)
{
    return SV_MMSG;
}
