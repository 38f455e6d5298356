#include "engine/vfs_int.h"
