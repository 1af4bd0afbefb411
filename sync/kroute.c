// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <linux/rtnetlink.h>

#include "sync/hash.h"
#include "sync/kroute.h"

static int addr_len(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* An address attribute of the route's family into p (len = full). */
static int get_addr(const struct nlattr *a, int family, struct cls_prefix *p)
{
	int n = addr_len(family);

	if (!n || nla_len(a) != n)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->family = family;
	p->len = n * 8;
	memcpy(p->addr, nla_data(a), n);
	return 0;
}

/* RTA_VIA: a gateway of another family (IPv4 over an IPv6 nexthop). */
static int get_via(const struct nlattr *a, struct cls_prefix *p)
{
	const struct rtvia *v = nla_data(a);
	int n;

	if (nla_len(a) < (int)sizeof(*v))
		return -EINVAL;
	n = addr_len(v->rtvia_family);
	if (!n || nla_len(a) != (int)sizeof(*v) + n)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->family = v->rtvia_family;
	p->len = n * 8;
	memcpy(p->addr, v->rtvia_addr, n);
	return 0;
}

static int get_u32(const struct nlattr *a, __u32 *v)
{
	if (nla_len(a) < 4)
		return -EINVAL;
	*v = nla_get_u32((struct nlattr *)a);
	return 0;
}

/* Attributes a nexthop may carry, at the top level or in a rtnexthop. */
static int nh_attr(const struct nlattr *a, int family, struct kroute_nh *nh)
{
	switch (nla_type(a)) {
	case RTA_GATEWAY:
		return get_addr(a, family, &nh->gw);
	case RTA_VIA:
		return get_via(a, &nh->gw);
	case RTA_FLOW:
		return get_u32(a, &nh->realm);
	case RTA_OIF:
		return get_u32(a, &nh->oif);
	}
	return 0;
}

/* One nexthop's part of kroute_nh_hash(): the hash is a sum of these. */
static __u32 nh_hash(const struct kroute_nh *nh)
{
	__u32 h = sync_mix32(nh->oif) ^ sync_mix32(nh->realm + 1);

	h = sync_hash_addr(h ^ nh->gw.family, nh->gw.addr,
			   addr_len(nh->gw.family));
	return sync_mix32(h);
}

/*
 * The kernel writes an attribute's length in 16 bits and does not check
 * that a nest fits (nla_nest_end()): a multipath route of more than
 * 64 KiB of nexthops (some 2300 IPv6 ones) comes with RTA_MULTIPATH's
 * length cut to its low 16 bits, and its last nexthops where the next
 * attributes should start.  The nexthops themselves are whole: the real
 * length is the last nexthop boundary that agrees with the 16 bits (what
 * follows the nest is less than 64 KiB of other attributes, so no later
 * boundary can agree).  Returns the payload length, or -1 if no boundary
 * agrees.
 */
static long multipath_len(const struct nlattr *mp, const __u8 *end)
{
	const __u8 *data = (const __u8 *)mp + NLA_HDRLEN;
	size_t avail = end - data, off = 0;
	long found = -1;

	for (;;) {
		const struct rtnexthop *rtnh = (const void *)(data + off);

		if (((off + NLA_HDRLEN) & 0xffff) == mp->nla_len)
			found = off;
		if (avail - off < sizeof(*rtnh) ||
		    rtnh->rtnh_len < sizeof(*rtnh) ||
		    rtnh->rtnh_len > avail - off)
			return found;
		off += RTNH_ALIGN(rtnh->rtnh_len);
		if (off > avail)
			return found;
	}
}

static int decode_multipath(const struct nlattr *mp, int rem, struct kroute *r)
{
	const struct rtnexthop *rtnh = nla_data(mp);

	/* RTNH_OK() reads rtnh_len before it looks at rem */
	while (rem >= (int)sizeof(*rtnh) && RTNH_OK(rtnh, rem)) {
		struct kroute_nh nh = {.oif = rtnh->rtnh_ifindex};
		struct nlattr *a;
		int arem, err;

		nla_for_each_attr(a, (struct nlattr *)RTNH_DATA(rtnh),
				  rtnh->rtnh_len - RTNH_LENGTH(0), arem)
		{
			/* RTA_OIF is rtnh_ifindex here, not an attribute */
			if (nla_type(a) == RTA_OIF)
				continue;
			err = nh_attr(a, r->dst.family, &nh);
			if (err)
				return err;
		}
		if (r->nr_nh < KROUTE_MAX_NH) {
			r->nh[r->nr_nh++] = nh;
		} else {
			r->nh_truncated = true;
			r->nh_more++;
			r->nh_more_hash += nh_hash(&nh);
		}
		rem -= RTNH_ALIGN(rtnh->rtnh_len);
		rtnh = RTNH_NEXT(rtnh);
	}
	return 0;
}

static void mask_host_bits(struct cls_prefix *p)
{
	unsigned int i, bits = p->len;

	for (i = 0; i < sizeof(p->addr); i++) {
		if (bits >= 8) {
			bits -= 8;
			continue;
		}
		p->addr[i] &= (__u8)(0xff00 >> bits);
		bits = 0;
	}
}

int kroute_decode(const struct nlmsghdr *h, struct kroute *r)
{
	const struct rtmsg *rtm;
	const struct nlattr *mp = NULL;
	struct kroute_nh single = {0};
	bool have_nh = false;
	const __u8 *p, *end;
	long mp_len = 0;
	int err;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return -EINVAL;
	rtm = nlmsg_data(h);
	if (!addr_len(rtm->rtm_family) ||
	    rtm->rtm_dst_len > addr_len(rtm->rtm_family) * 8)
		return -EINVAL;
	/* nr_nh and the flags first: nh[] is large and needs no clearing */
	r->nr_nh = 0;
	r->nh_more = 0;
	r->nh_more_hash = 0;
	r->nh_truncated = false;
	r->msg_len = h->nlmsg_len;
	r->nh_id = 0;
	r->priority = 0;
	memset(&r->dst, 0, sizeof(r->dst));
	r->dst.family = rtm->rtm_family;
	r->dst.len = rtm->rtm_dst_len;
	r->table = rtm->rtm_table;
	r->protocol = rtm->rtm_protocol;
	r->type = rtm->rtm_type;
	r->scope = rtm->rtm_scope;
	r->tos = rtm->rtm_tos;
	r->flags = rtm->rtm_flags;

	p = (const __u8 *)nlmsg_attrdata(h, sizeof(*rtm));
	end = (const __u8 *)h + h->nlmsg_len;
	/* nla_for_each_attr(), but RTA_MULTIPATH may be longer than it says */
	while (end - p >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t len = a->nla_len;

		if (nla_type(a) == RTA_MULTIPATH) {
			mp_len = multipath_len(a, end);
			if (mp_len < 0)
				return -EINVAL;
			len = NLA_HDRLEN + mp_len;
		} else if (len < NLA_HDRLEN || len > (size_t)(end - p)) {
			break;
		}
		p += NLA_ALIGN(len);
		err = 0;
		switch (nla_type(a)) {
		case RTA_DST:
			if (nla_len(a) != addr_len(rtm->rtm_family))
				return -EINVAL;
			memcpy(r->dst.addr, nla_data(a), nla_len(a));
			break;
		case RTA_TABLE:
			err = get_u32(a, &r->table);
			break;
		case RTA_PRIORITY:
			err = get_u32(a, &r->priority);
			break;
		case RTA_NH_ID:
			err = get_u32(a, &r->nh_id);
			break;
		case RTA_MULTIPATH:
			mp = a;
			break;
		case RTA_GATEWAY:
		case RTA_VIA:
		case RTA_FLOW:
		case RTA_OIF:
			have_nh = true;
			err = nh_attr(a, rtm->rtm_family, &single);
			break;
		}
		if (err)
			return err;
	}
	mask_host_bits(&r->dst);
	if (mp)
		return decode_multipath(mp, mp_len, r);
	if (have_nh)
		r->nh[r->nr_nh++] = single;
	return 0;
}

bool kroute_syncable(const struct kroute *r)
{
	if (r->flags & RTM_F_CLONED)
		return false;
	switch (r->type) {
	case RTN_UNICAST:
	case RTN_BLACKHOLE:
	case RTN_UNREACHABLE:
	case RTN_PROHIBIT:
		return true;
	}
	return false;
}

/*
 * Summed per nexthop, so the order does not count: the kernel lists an
 * IPv6 route's nexthops in one order in the notification of an append
 * and in another in a dump.
 */
__u32 kroute_nh_hash_base(const struct kroute *r)
{
	return sync_mix32(r->nh_id ^ 0x9e3779b9U);
}

__u32 kroute_nh_hash(const struct kroute *r)
{
	__u32 sum = kroute_nh_hash_base(r) + r->nh_more_hash;
	unsigned int i;

	for (i = 0; i < r->nr_nh; i++)
		sum += nh_hash(&r->nh[i]);
	return sum;
}
