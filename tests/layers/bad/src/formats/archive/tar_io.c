/* Planted: a formats file that does I/O and uses a later formats sub-folder. */
#include <fcntl.h>

#include "formats/packages/pkg_rules.h"

int tar_io(const char *path)
{
	return open(path, O_RDONLY);
}
