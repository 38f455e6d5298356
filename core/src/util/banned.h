/* banned.h: functions we do not call in rockfs (git's banned.h). Force-included into
 * core/ and fs/ sources by CMake. Use snprintf, memcpy with a checked length, strtol. */
#ifndef RK_BANNED_H
#define RK_BANNED_H

/* The system headers that declare them come first, so their own definitions (inline
 * atoi and friends) are not hit by the macros below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RK_BANNED(f) sorry_##f##_is_a_banned_function

#undef strcpy
#define strcpy(d, s) RK_BANNED(strcpy)
#undef strcat
#define strcat(d, s) RK_BANNED(strcat)
#undef sprintf
#define sprintf(...) RK_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) RK_BANNED(vsprintf)
#undef strtok
#define strtok(s, d) RK_BANNED(strtok)
#undef atoi
#define atoi(s) RK_BANNED(atoi)
#undef gmtime
#define gmtime(t) RK_BANNED(gmtime)
#undef localtime
#define localtime(t) RK_BANNED(localtime)

#endif
