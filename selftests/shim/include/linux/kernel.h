/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The kernel log: standard error, with the level and pr_fmt()'s prefix. */
#ifndef pr_fmt
#define pr_fmt(fmt)	fmt
#endif
__attribute__((format(printf, 2, 3)))
void shim_printk(const char *level, const char *fmt, ...);
#define pr_err(fmt, ...)	shim_printk("err", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	shim_printk("warn", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	shim_printk("info", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	shim_printk("alert", pr_fmt(fmt), ##__VA_ARGS__)

#endif
