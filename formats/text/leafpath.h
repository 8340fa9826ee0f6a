/* SPDX-License-Identifier: MIT */
/*
 * leafpath.h - names for the leaves of a pytree, for titles and labels:
 * dict keys joined by '.', positions in tuples and lists as [i], as one
 * would index the tree in Python without the quotes:
 *
 *	"*"                      ""
 *	"( * * )"                "[0]" "[1]"
 *	"{ b=* w=* }"            "b" "w"
 *	"{ opt=( * * ) w=* }"    "opt[0]" "opt[1]" "w"
 */
#ifndef HCB_LEAFPATH_H
#define HCB_LEAFPATH_H

/*
 * The paths of the nleaves leaves of tree (NULL or unparsable: "leaf N"
 * for each, which says at least which one): an array of nleaves strings,
 * free with hcb_leaf_paths_free.  0 or -ENOMEM.
 */
int hcb_leaf_paths(const char *tree, unsigned int nleaves, char ***out);
void hcb_leaf_paths_free(char **paths, unsigned int nleaves);

#endif
