/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Packet builders for the BPF_PROG_TEST_RUN tests.  They are built so that a
 * parser reading past the fixed IP header, or at a wrong offset, fails
 * visibly: everything after the last header is zero (read as a chain of
 * empty hop-by-hop headers, it runs on past the end), and extension-header
 * bodies read as headers far longer than the packet.
 */
#ifndef CLS_TEST_PKT_H
#define CLS_TEST_PKT_H

#include <stddef.h>
#include <linux/types.h>

#define PKT_MAX	    512
#define PKT_PAYLOAD 64

#define PKT_ETH_P_IP	 0x0800
#define PKT_ETH_P_IPV6	 0x86dd
#define PKT_ETH_P_ARP	 0x0806
#define PKT_ETH_P_8021Q	 0x8100
#define PKT_ETH_P_8021AD 0x88a8

struct pkt {
	__u8 buf[PKT_MAX];
	size_t len;
	size_t l3_off;
};

/* Ethernet with ntags VLAN tags (tpids[0] outermost), then proto. */
void pkt_eth(struct pkt *p, const __u16 *tpids, int ntags, __u16 proto);
/* No link header: what an L3 device (tun, WireGuard) carries. */
void pkt_l3(struct pkt *p);
/* IPv4 (IHL 5) + UDP + zero payload, header checksum filled in. */
int pkt_ipv4(struct pkt *p, const char *src, const char *dst, __u8 tos);
/*
 * IPv6 + the extension headers exts[0..n_ext) + UDP + zero payload.  Each
 * type gets a length its own rule computes differently from the others.
 */
int pkt_ipv6(struct pkt *p, const char *src, const char *dst, __u8 tclass,
	     const __u8 *exts, int n_ext);
/* Appends n zero bytes; returns where they start, or NULL if full. */
__u8 *pkt_put(struct pkt *p, size_t n);
/* One's-complement sum of an IPv4 header: 0 when its checksum is valid. */
__u16 pkt_ipv4_csum(const void *hdr, size_t len);

#endif /* CLS_TEST_PKT_H */
