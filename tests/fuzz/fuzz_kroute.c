// SPDX-License-Identifier: GPL-2.0-only
/*
 * A route message as the sync daemon reads it from the kernel
 * (sync/kroute.c), as any bytes: the input is the message, in a heap
 * block of exactly its length (nlmsg_len is cut to it), so AddressSanitizer
 * sees a read past it.  kroute_decode() must:
 *  - answer 0 or -EINVAL;
 *  - on 0, give a route that holds together: a family, a prefix of a
 *    valid length without host bits, at most KROUTE_MAX_NH nexthops kept
 *    (nh_truncated exactly when some were not), gateways of a family
 *    and full length, msg_len the message's;
 *  - hash the nexthops alike in any order (kroute_nh_hash());
 *  - read back the route from a message built of what it decoded (the
 *    kernel's own layout: RTA_TABLE, RTA_DST, RTA_PRIORITY, RTA_NH_ID,
 *    one nexthop as top-level attributes or several in RTA_MULTIPATH).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "sync/kroute.h"
#include "tests/fuzz/fuzz.h"

static struct kroute k, back;

static size_t put(__u8 *buf, size_t off, unsigned short type, const void *v,
		  size_t len)
{
	struct rtattr *a = (struct rtattr *)(buf + off);

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(a), v, len);
	return off + RTA_ALIGN(a->rta_len);
}

static size_t put_nh(__u8 *buf, size_t off, int family,
		     const struct kroute_nh *nh)
{
	size_t alen = nh->gw.family == AF_INET ? 4 : 16;
	__u8 via[sizeof(struct rtvia) + 16];

	if (nh->gw.family == family) {
		off = put(buf, off, RTA_GATEWAY, nh->gw.addr, alen);
	} else if (nh->gw.family) {
		((struct rtvia *)via)->rtvia_family = nh->gw.family;
		memcpy(via + sizeof(struct rtvia), nh->gw.addr, alen);
		off = put(buf, off, RTA_VIA, via, sizeof(struct rtvia) + alen);
	}
	if (nh->realm)
		off = put(buf, off, RTA_FLOW, &nh->realm, 4);
	return off;
}

/* k as the kernel would send it; returns the message (caller frees). */
static struct nlmsghdr *encode(const struct kroute *r)
{
	size_t off, alen = r->dst.family == AF_INET ? 4 : 16;
	__u8 *buf = calloc(1, 256 + r->nr_nh * 48);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct rtmsg *rtm = NLMSG_DATA(h);
	unsigned int i;

	if (!buf)
		fuzz_fail("out of memory");
	h->nlmsg_type = RTM_NEWROUTE;
	rtm->rtm_family = r->dst.family;
	rtm->rtm_dst_len = r->dst.len;
	rtm->rtm_table = r->table < 256 ? r->table : RT_TABLE_COMPAT;
	rtm->rtm_protocol = r->protocol;
	rtm->rtm_type = r->type;
	rtm->rtm_scope = r->scope;
	rtm->rtm_tos = r->tos;
	rtm->rtm_flags = r->flags;
	off = NLMSG_LENGTH(sizeof(*rtm));
	off = put(buf, off, RTA_TABLE, &r->table, 4);
	off = put(buf, off, RTA_DST, r->dst.addr, alen);
	if (r->priority)
		off = put(buf, off, RTA_PRIORITY, &r->priority, 4);
	if (r->nh_id)
		off = put(buf, off, RTA_NH_ID, &r->nh_id, 4);
	if (r->nr_nh == 1) {
		/* a nexthop of nothing but a device, that device 0 */
		off = put(buf, off, RTA_OIF, &r->nh[0].oif, 4);
		off = put_nh(buf, off, r->dst.family, &r->nh[0]);
	} else if (r->nr_nh > 1) {
		struct rtattr *mp = (struct rtattr *)(buf + off);

		mp->rta_type = RTA_MULTIPATH;
		off += RTA_LENGTH(0);
		for (i = 0; i < r->nr_nh; i++) {
			struct rtnexthop *nh = (struct rtnexthop *)(buf + off);

			nh->rtnh_ifindex = r->nh[i].oif;
			off = put_nh(buf, off + RTNH_LENGTH(0), r->dst.family,
				     &r->nh[i]);
			nh->rtnh_len = buf + off - (__u8 *)nh;
		}
		mp->rta_len = buf + off - (__u8 *)mp;
	}
	h->nlmsg_len = off;
	return h;
}

static void check_prefix(const struct cls_prefix *p, int family, bool full,
			 const char *what)
{
	unsigned int bits = family == AF_INET ? 32 : 128, i;

	FUZZ_CHECK(p->family == family, "%s: family %d", what, p->family);
	FUZZ_CHECK(full ? p->len == bits : p->len <= bits, "%s: length %u",
		   what, p->len);
	for (i = 0; i < 16; i++) {
		unsigned int lo = i * 8;
		__u8 keep = 0xff;

		if (lo >= p->len)
			keep = 0;
		else if (lo + 8 > p->len)
			keep = (__u8)(0xff00 >> (p->len - lo));

		FUZZ_CHECK(!(p->addr[i] & ~keep), "%s: bits past /%u", what,
			   p->len);
	}
}

static void check_route(const struct kroute *r, __u32 msg_len)
{
	unsigned int i;

	check_prefix(&r->dst, r->dst.family, false, "destination");
	FUZZ_CHECK(r->nr_nh <= KROUTE_MAX_NH, "%u nexthops", r->nr_nh);
	FUZZ_CHECK(r->nh_truncated == (r->nh_more > 0),
		   "nh_truncated %d with %u more", r->nh_truncated, r->nh_more);
	FUZZ_CHECK(!r->nh_more || r->nr_nh == KROUTE_MAX_NH,
		   "%u more nexthops past %u", r->nh_more, r->nr_nh);
	FUZZ_CHECK(r->msg_len == msg_len, "msg_len %u, message %u", r->msg_len,
		   msg_len);
	for (i = 0; i < r->nr_nh; i++)
		if (r->nh[i].gw.family)
			check_prefix(&r->nh[i].gw, r->nh[i].gw.family, true,
				     "gateway");
		else
			FUZZ_CHECK(!r->nh[i].gw.len, "gateway without family");
}

static void check_hash_order(void)
{
	__u32 h = kroute_nh_hash(&k);
	unsigned int i, n = k.nr_nh;

	for (i = 0; i < n / 2; i++) {
		struct kroute_nh t = k.nh[i];

		k.nh[i] = k.nh[n - 1 - i];
		k.nh[n - 1 - i] = t;
	}
	FUZZ_CHECK(kroute_nh_hash(&k) == h, "the hash depends on the order");
	for (i = 0; i < n / 2; i++) {
		struct kroute_nh t = k.nh[i];

		k.nh[i] = k.nh[n - 1 - i];
		k.nh[n - 1 - i] = t;
	}
}

static void check_read_back(void)
{
	struct nlmsghdr *h = encode(&k);
	unsigned int i;
	int err = kroute_decode(h, &back);

	FUZZ_CHECK(!err, "a message made of the route does not decode: %d",
		   err);
	FUZZ_CHECK(!memcmp(&back.dst, &k.dst, sizeof(k.dst)) &&
			   back.table == k.table &&
			   back.priority == k.priority &&
			   back.nh_id == k.nh_id &&
			   back.protocol == k.protocol && back.type == k.type &&
			   back.scope == k.scope && back.tos == k.tos &&
			   back.flags == k.flags && back.nr_nh == k.nr_nh,
		   "the route reads back otherwise");
	for (i = 0; i < k.nr_nh; i++)
		FUZZ_CHECK(!memcmp(&back.nh[i], &k.nh[i], sizeof(k.nh[i])),
			   "nexthop %u reads back otherwise", i);
	FUZZ_CHECK(kroute_nh_hash(&back) == kroute_nh_hash(&k),
		   "the hash reads back otherwise");
	free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlmsghdr *h;
	int err;

	if (size < NLMSG_HDRLEN)
		return 0;
	h = malloc(size);
	if (!h)
		fuzz_fail("out of memory");
	memcpy(h, data, size);
	/* what the daemon passes on is whole in its datagram (nlmsg_ok) */
	if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > size)
		h->nlmsg_len = size;
	err = kroute_decode(h, &k);
	FUZZ_CHECK(!err || err == -EINVAL, "kroute_decode returned %d", err);
	if (!err) {
		check_route(&k, h->nlmsg_len);
		kroute_syncable(&k);
		check_hash_order();
		if (!k.nh_truncated)
			check_read_back();
	}
	free(h);
	return 0;
}
