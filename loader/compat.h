/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel ABI that Debian 12's uapi headers and libbpf 1.1 predate.  The
 * values are fixed kernel ABI (include/uapi/linux/bpf.h, 6.6+).
 */
#ifndef CLS_COMPAT_H
#define CLS_COMPAT_H

#include <linux/bpf.h>

#define CLS_BPF_TCX_INGRESS 46
#define CLS_BPF_TCX_EGRESS 47
#define CLS_BPF_LINK_TYPE_TCX 11

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

/*
 * struct bpf_link_info's union: tcx { ifindex; attach_type } sits where
 * xdp { ifindex } does, so info.xdp.ifindex reads a tcx link's ifindex too.
 */
#define cls_link_info_ifindex(info) ((info)->xdp.ifindex)

#endif
