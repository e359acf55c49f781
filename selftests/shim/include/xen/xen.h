/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_XEN_XEN_H
#define _SHIM_XEN_XEN_H

#include <linux/types.h>

/* A Xen PV guest (struct shim_machine's xen_pv, shim/vcpu.c). */
bool shim_xen_pv_domain(void);
#define xen_pv_domain()		shim_xen_pv_domain()

#endif
