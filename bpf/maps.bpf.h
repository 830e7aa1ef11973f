/*
 * Map helpers, in bcc's libbpf-tools' pattern (maps.bpf.h there).
 */
#ifndef PROF_MAPS_BPF_H
#define PROF_MAPS_BPF_H

#define EEXIST 17

/* The value under key in a hash map, inserted as init if there is none:
 * NULL only when the map is full.  Another CPU inserting the same key
 * first (-EEXIST) is no failure: its value is the one.  err is an int,
 * not a long: the helper's return is 32 bits on some kernels, and a long
 * holding it would never equal -EEXIST. */
static __always_inline void *lookup_or_try_init(void *map, const void *key, const void *init)
{
	void *val = bpf_map_lookup_elem(map, key);
	int err;

	if (val)
		return val;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -EEXIST)
		return NULL;
	return bpf_map_lookup_elem(map, key);
}

#endif
