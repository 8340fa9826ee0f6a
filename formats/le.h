/* SPDX-License-Identifier: MIT */
/*
 * le.h - little-endian integers in byte buffers, whatever the host's order
 * and the buffer's alignment: how the file formats (.hcbcap, .npz/ZIP) write
 * and read their fixed-width fields.
 */
#ifndef HCB_LE_H
#define HCB_LE_H

#include <stdint.h>

static inline void hcb_put_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void hcb_put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void hcb_put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint16_t hcb_get_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t hcb_get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t hcb_get_le64(const unsigned char *p)
{
	return (uint64_t)hcb_get_le32(p) | (uint64_t)hcb_get_le32(p + 4) << 32;
}

#endif
