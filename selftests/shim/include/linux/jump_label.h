/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Static keys, as a flag read on every test: the kernel patches the code
 * instead, but the branch taken is the same, and a test that flips a key
 * between two runs sees what the kernel would.
 */
#ifndef _SHIM_LINUX_JUMP_LABEL_H
#define _SHIM_LINUX_JUMP_LABEL_H

#include <linux/compiler.h>
#include <linux/types.h>

struct static_key_true {
	bool enabled;
};

struct static_key_false {
	bool enabled;
};

#define DEFINE_STATIC_KEY_TRUE(name)	struct static_key_true name = { true }
#define DEFINE_STATIC_KEY_FALSE(name)	struct static_key_false name = { false }
#define DECLARE_STATIC_KEY_TRUE(name)	extern struct static_key_true name
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name

#define static_branch_likely(key)	__builtin_expect(READ_ONCE((key)->enabled), 1)
#define static_branch_unlikely(key)	__builtin_expect(READ_ONCE((key)->enabled), 0)
#define static_branch_enable(key)	WRITE_ONCE((key)->enabled, true)
#define static_branch_disable(key)	WRITE_ONCE((key)->enabled, false)

#endif /* _SHIM_LINUX_JUMP_LABEL_H */
