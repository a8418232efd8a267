# Unwinding ground truth (tests/unit/test_unwind.c, scripts/bench/unwind.sh):
# -O2 without frame pointers, so only CFI can walk them.
pprobe_workload(unwind_wl unwind_wl.c FLAGS ${WL_NOFP} LIBS dl pthread)
# One function without any CFI (no .eh_frame, no .debug_frame: -g0), with a
# frame pointer (mode nocfi).
target_sources(unwind_wl PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unwind_nocfi.c)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/unwind_nocfi.c PROPERTIES COMPILE_OPTIONS
  "-g0;-fno-asynchronous-unwind-tables;-fno-unwind-tables;-fno-omit-frame-pointer")
# ... and one with neither CFI nor frame pointer (mode nofp: must end no-cfi).
target_sources(unwind_wl PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unwind_nocfi_nofp.c)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/unwind_nocfi_nofp.c PROPERTIES COMPILE_OPTIONS
  "-g0;-fno-asynchronous-unwind-tables;-fno-unwind-tables;-fomit-frame-pointer")
add_library(unwind_plugin MODULE unwind_plugin.c)
target_compile_options(unwind_plugin PRIVATE -fno-sanitize=all ${WL_NOFP})
target_link_options(unwind_plugin PRIVATE -fno-sanitize=all)
set_target_properties(unwind_plugin PROPERTIES PREFIX "lib" OUTPUT_NAME unwind_plugin
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_dependencies(unwind_wl unwind_plugin)
# The same program stripped to .eh_frame only (no .symtab, no .debug_*).
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/unwind_wl_stripped
  COMMAND ${CMAKE_OBJCOPY} --strip-all $<TARGET_FILE:unwind_wl> ${CMAKE_CURRENT_BINARY_DIR}/unwind_wl_stripped
  DEPENDS unwind_wl VERBATIM)
add_custom_target(unwind_wl_stripped ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/unwind_wl_stripped)
pprobe_workload(unwind_cxx unwind_cxx.cpp FLAGS ${WL_NOFP})
# The same program linked by lld, whose executable segment shares a file page
# with the read-only one at another virtual address (vaddr != file offset).
find_program(PPROBE_LLD ld.lld)
if(PPROBE_LLD)
  pprobe_workload(unwind_wl_lld unwind_wl.c FLAGS ${WL_NOFP} -fPIE LIBS dl pthread)
  target_sources(unwind_wl_lld PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unwind_nocfi.c ${CMAKE_CURRENT_SOURCE_DIR}/unwind_nocfi_nofp.c)
  target_link_options(unwind_wl_lld PRIVATE -pie -fuse-ld=lld)
  add_dependencies(unwind_wl_lld unwind_plugin)
endif()
# nocfi_call (no CFI, frame pointer) in a library whose ELF e_entry is that
# function (mode entrylib): a library's e_entry is no thread's entry, so the
# walk must go on through its frame pointer to main, not end there as at _start.
add_library(unwind_entrylib MODULE unwind_nocfi.c)
target_compile_options(unwind_entrylib PRIVATE -fno-sanitize=all -O2 -g0 -fno-asynchronous-unwind-tables
  -fno-unwind-tables -fno-omit-frame-pointer)
target_link_options(unwind_entrylib PRIVATE -fno-sanitize=all -Wl,-e,nocfi_call)
set_target_properties(unwind_entrylib PROPERTIES PREFIX "lib" OUTPUT_NAME unwind_entrylib
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_dependencies(unwind_wl unwind_entrylib)
