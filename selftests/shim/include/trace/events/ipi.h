/* SPDX-License-Identifier: GPL-2.0 */
/* The IPI tracepoints: smp_send_reschedule() of the shim traces nothing. */
#ifndef SHIM_TRACE_EVENTS_IPI_H
#define SHIM_TRACE_EVENTS_IPI_H
#endif
