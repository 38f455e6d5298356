/* a service that looks inside nodes */
#include "engine/engine.h"
struct node {
	int src;
};
static int f(const struct node *n)
{
	return n->src == SRC_BLOB;
}
