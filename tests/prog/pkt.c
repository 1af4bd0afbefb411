// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>

#include "tests/prog/pkt.h"

#define NEXTHDR_HOP	 0
#define NEXTHDR_ROUTING	 43
#define NEXTHDR_FRAGMENT 44
#define NEXTHDR_AUTH	 51
#define NEXTHDR_DEST	 60

__u8 *pkt_put(struct pkt *p, size_t n)
{
	__u8 *at;

	if (p->len + n > sizeof(p->buf))
		return NULL;
	at = p->buf + p->len;
	memset(at, 0, n);
	p->len += n;
	return at;
}

static void put_be16(__u8 *at, __u16 v)
{
	at[0] = v >> 8;
	at[1] = v & 0xff;
}

void pkt_eth(struct pkt *p, const __u16 *tpids, int ntags, __u16 proto)
{
	static const __u8 macs[2 * ETH_ALEN] = {0x02, 0, 0, 0, 0, 0x02,
						0x02, 0, 0, 0, 0, 0x01};
	__u8 *at;
	int i;

	memset(p, 0, sizeof(*p));
	memcpy(pkt_put(p, sizeof(macs)), macs, sizeof(macs));
	for (i = 0; i < ntags; i++) {
		at = pkt_put(p, 4);
		put_be16(at, tpids[i]);
		put_be16(at + 2, 100 + i); /* VLAN id */
	}
	put_be16(pkt_put(p, 2), proto);
	p->l3_off = p->len;
}

void pkt_l3(struct pkt *p)
{
	memset(p, 0, sizeof(*p));
}

__u16 pkt_ipv4_csum(const void *hdr, size_t len)
{
	const __u8 *b = hdr;
	__u32 sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (b[i] << 8) | b[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static int put_udp(struct pkt *p)
{
	/* Zero ports and payload: see the comment in pkt.h. */
	return pkt_put(p, 8 + PKT_PAYLOAD) ? 0 : -ENOSPC;
}

/*
 * Headers are built in aligned locals and copied in: at offset 14 (or 18,
 * 22) a struct iphdr in the buffer would be misaligned.
 */
int pkt_ipv4(struct pkt *p, const char *src, const char *dst, __u8 tos)
{
	struct iphdr iph = {};
	__u8 *at = pkt_put(p, sizeof(iph));

	if (!at)
		return -ENOSPC;
	iph.version = 4;
	iph.ihl = 5;
	iph.tos = tos;
	iph.tot_len = htons(sizeof(iph) + 8 + PKT_PAYLOAD);
	iph.ttl = 64;
	iph.protocol = IPPROTO_UDP;
	if (inet_pton(AF_INET, src, &iph.saddr) != 1 ||
	    inet_pton(AF_INET, dst, &iph.daddr) != 1)
		return -EINVAL;
	iph.check = htons(pkt_ipv4_csum(&iph, sizeof(iph)));
	memcpy(at, &iph, sizeof(iph));
	return put_udp(p);
}

/*
 * Read as a header, the body of an extension header says "destination
 * options, 2 KiB long": a walk that lands inside a header because it got a
 * length wrong runs past the end instead of finding its way back.
 */
static void fill_ext_body(__u8 *at, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		at[i] = NEXTHDR_DEST;
		at[i + 1] = 0xff;
	}
}

/* Bytes each extension type takes here, and its length field for that. */
static int ext_shape(__u8 type, size_t *size, __u8 *len_field)
{
	switch (type) {
	case NEXTHDR_HOP:
		*len_field = 1; /* (1 + 1) * 8 */
		break;
	case NEXTHDR_ROUTING:
		*len_field = 2; /* (2 + 1) * 8 */
		break;
	case NEXTHDR_DEST:
		*len_field = 3; /* (3 + 1) * 8; AH's rule would give 20 */
		break;
	case NEXTHDR_FRAGMENT:
		/* Reserved, ignored on receipt: not a length. */
		*len_field = 3;
		*size = 8;
		return 0;
	case NEXTHDR_AUTH:
		*len_field = 4; /* (4 + 2) * 4 */
		*size = 24;
		return 0;
	default:
		return -EINVAL;
	}
	*size = (*len_field + 1) * 8;
	return 0;
}

int pkt_ipv6(struct pkt *p, const char *src, const char *dst, __u8 tclass,
	     const __u8 *exts, int n_ext)
{
	struct ipv6hdr ip6h = {};
	__u8 *hdr = pkt_put(p, sizeof(ip6h)), *nexthdr, *at, len_field;
	size_t start = p->len, size;
	int i;

	if (!hdr)
		return -ENOSPC;
	ip6h.version = 6;
	ip6h.priority = tclass >> 4;
	ip6h.flow_lbl[0] = (tclass & 0x0f) << 4;
	ip6h.hop_limit = 64;
	if (inet_pton(AF_INET6, src, &ip6h.saddr) != 1 ||
	    inet_pton(AF_INET6, dst, &ip6h.daddr) != 1)
		return -EINVAL;
	nexthdr = &ip6h.nexthdr;
	for (i = 0; i < n_ext; i++) {
		if (ext_shape(exts[i], &size, &len_field))
			return -EINVAL;
		at = pkt_put(p, size);
		if (!at)
			return -ENOSPC;
		*nexthdr = exts[i];
		at[1] = len_field;
		fill_ext_body(at + 2, size - 2);
		nexthdr = at;
	}
	*nexthdr = IPPROTO_UDP;
	if (put_udp(p))
		return -ENOSPC;
	ip6h.payload_len = htons(p->len - start);
	memcpy(hdr, &ip6h, sizeof(ip6h));
	return 0;
}
