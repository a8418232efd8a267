# Symbolization: the same program PIE and non-PIE, and stripped variants
# whose symbols come only from .dynsym, a debuglink file, a build-id debug
# file or MiniDebugInfo. Plus C++ and the test driver.
pprobe_workload(sym_pie ${CMAKE_CURRENT_SOURCE_DIR}/symbolize_wl.c FLAGS ${WL_NOFP} -fPIE)
target_link_options(sym_pie PRIVATE -pie -rdynamic)
pprobe_workload(sym_nopie ${CMAKE_CURRENT_SOURCE_DIR}/symbolize_wl.c FLAGS ${WL_NOFP} -fno-pie)
target_link_options(sym_nopie PRIVATE -no-pie)
pprobe_workload(sym_cxx ${CMAKE_CURRENT_SOURCE_DIR}/symbolize_cxx.cc FLAGS ${WL_NOFP})

set(SYM_SPLIT sh ${CMAKE_CURRENT_SOURCE_DIR}/symbolize_split.sh)
set(SYM_DBG ${CMAKE_CURRENT_BINARY_DIR}/sym-debug-root)
add_custom_command(OUTPUT sym_stripped sym_debuglink sym_buildid sym_minidebug
  COMMAND ${SYM_SPLIT} strip $<TARGET_FILE:sym_pie> ${CMAKE_CURRENT_BINARY_DIR}/sym_stripped ${SYM_DBG}
  COMMAND ${SYM_SPLIT} debuglink $<TARGET_FILE:sym_pie> ${CMAKE_CURRENT_BINARY_DIR}/sym_debuglink ${SYM_DBG}
  COMMAND ${SYM_SPLIT} buildid $<TARGET_FILE:sym_nopie> ${CMAKE_CURRENT_BINARY_DIR}/sym_buildid ${SYM_DBG}
  COMMAND ${SYM_SPLIT} minidebug $<TARGET_FILE:sym_pie> ${CMAKE_CURRENT_BINARY_DIR}/sym_minidebug ${SYM_DBG}
  DEPENDS sym_pie sym_nopie ${CMAKE_CURRENT_SOURCE_DIR}/symbolize_split.sh
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_custom_target(sym_split_binaries ALL DEPENDS sym_stripped sym_debuglink sym_buildid sym_minidebug)

add_executable(symbolize_driver ${CMAKE_SOURCE_DIR}/tests/tools/symbolize_driver.c)
target_link_libraries(symbolize_driver PRIVATE pprobe_symbolize)
set_target_properties(symbolize_driver PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# lld lays out the executable segment at a virtual address that differs from
# its file offset (offset 0x780, vaddr 0x1780): runtime -> ELF translation must
# go through the PT_LOADs, not assume vaddr == offset.
find_program(PPROBE_LLD ld.lld)
if(PPROBE_LLD)
  pprobe_workload(sym_lld ${CMAKE_CURRENT_SOURCE_DIR}/symbolize_wl.c FLAGS ${WL_NOFP} -fPIE)
  target_link_options(sym_lld PRIVATE -pie -fuse-ld=lld)
endif()
