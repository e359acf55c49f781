/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameters, for a userspace build of module/'s glue: a parameter
 * is its variable's initial value (a test sets the variable itself); the
 * setters the glue calls are in shim.c.
 */
#ifndef _SHIM_LINUX_MODULEPARAM_H
#define _SHIM_LINUX_MODULEPARAM_H

struct kernel_param;

struct kernel_param_ops {
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
};

struct kernel_param {
	const char *name;
	const struct kernel_param_ops *ops;
	void *arg;
};

#define module_param_cb(name, ops, arg, perm)				\
	const struct kernel_param shim_param_##name = { #name, ops, arg }
#define module_param(name, type, perm)	extern int shim_param_##name
#define MODULE_PARM_DESC(name, text)	extern int shim_param_desc_##name

/* An unsigned int in [min, max] from @val into kp->arg, else -EINVAL. */
int param_set_uint_minmax(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max);
int param_get_uint(char *buffer, const struct kernel_param *kp);

#endif
