/* SPDX-License-Identifier: MIT */
/* registry.h - the consumers a session knows, by id (the receiver's shape registry). */
#ifndef HCB_REGISTRY_H
#define HCB_REGISTRY_H

#include <stdint.h>

#include "consumer.h"

struct hcb_registry;

struct hcb_registry *hcb_registry_new(void);
void hcb_registry_free(struct hcb_registry *r);
/* Takes ownership of c.  -EEXIST (c freed) if the id is known already. */
int hcb_registry_add(struct hcb_registry *r, struct hcb_consumer *c);
const struct hcb_consumer *hcb_registry_get(const struct hcb_registry *r, uint32_t id);
unsigned int hcb_registry_count(const struct hcb_registry *r);
/* i-th consumer in registration order, i < count. */
const struct hcb_consumer *hcb_registry_at(const struct hcb_registry *r, unsigned int i);

#endif
