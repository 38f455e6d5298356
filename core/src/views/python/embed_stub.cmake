# embed_stub.cmake: builds exe_stub.c (freestanding, static, no libc) with the C compiler
# and writes its bytes as C data with core/embed_file.cmake (rk_exe_stub[],
# rk_exe_stub_len; views/python/pysrc.h).
#
#   cmake -DCC=<compiler> -DSRC=<exe_stub.c> -DBIN=<exe_stub> -DOUT=<exe_stub_embed.c>
#         -DEMBED=<core/embed_file.cmake> -P embed_stub.cmake
#
# Run with none of the build's flags (sanitizers, coverage): the stub links nothing.
cmake_minimum_required(VERSION 3.18)

if(NOT CC OR NOT SRC OR NOT BIN OR NOT OUT OR NOT EMBED)
  message(FATAL_ERROR "embed_stub.cmake: CC, SRC, BIN, OUT and EMBED are required")
endif()
execute_process(
  COMMAND ${CC} -Os -ffreestanding -fno-stack-protector -fno-pie -no-pie -nostdlib -static
          -fno-asynchronous-unwind-tables -fcf-protection=none -Wl,--build-id=none
          -Wl,-z,noseparate-code -s -o ${BIN} ${SRC}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "embed_stub.cmake: building ${SRC} failed")
endif()
set(IN "${BIN}")
set(HEADER views/python/pysrc.h)
set(NAME rk_exe_stub)
include(${EMBED})
