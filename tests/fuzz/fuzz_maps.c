/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: what hcbtrace reads of a target's files (src/process/target.h).
 * The input is a 2-byte length L, L bytes of /proc/PID/maps text (each line
 * through hcb_maps_parse_line), and the rest: a library file the target
 * maps, read for its symbols as attach and list read it
 * (hcb_target_elf_funcs, hcb_target_symbol_offset) and for its USDT
 * notes as uprobe_multi links read them (hcb_usdt_sites, each maps line
 * also as a note's arguments).  Whatever the bytes,
 * each must come back with an answer or an error, nothing more.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf/usdt.h"
#include "process/target.h"

static void maps_lines(const uint8_t *data, size_t size)
{
	char line[4096 + 256];

	while (size) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t n = nl ? (size_t)(nl - data) + 1 : size;
		struct hcb_maps_line m;

		if (n < sizeof(line)) {
			struct hcb_usdt_spec spec;

			memcpy(line, data, n);
			line[n] = '\0';
			if (hcb_usdt_parse_args(line, &spec) == 0)
				assert(spec.arg_cnt <= HCB_USDT_MAX_ARGS);
			if (hcb_maps_parse_line(line, &m) == 0) {
				assert(m.start <= m.end);
				assert(strlen(m.path) < sizeof(m.path));
			}
		}
		data += n;
		size -= n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "hcbtap_registry", "main", "f", "" };
	static int fd = -1;
	static struct hcb_usdt_site sites[4];
	uint64_t offs[4], off;
	int n;
	char path[64];
	size_t l;

	if (size < 2)
		return 0;
	l = (size_t)data[0] | (size_t)data[1] << 8;
	if (l > size - 2)
		l = size - 2;
	maps_lines(data + 2, l);
	data += 2 + l;
	size -= 2 + l;
	/* the library, as a file: what the reader opens by path */
	if (fd < 0)
		fd = memfd_create("fuzz_maps", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	hcb_target_elf_funcs(path, names, 4, offs);
	hcb_target_symbol_offset(path, "hcbtap_registry", &off);
	n = hcb_usdt_sites(path, "hcbtap", "packet", sites, 4);
	assert(n <= 4);
	for (int i = 0; i < n; i++)
		assert(sites[i].off && sites[i].spec.arg_cnt <= HCB_USDT_MAX_ARGS);
	if (hcb_target_symbol_offset(path, "f", &off) == 0)
		hcb_elf_file_offset(path, off, &off);
	return 0;
}
