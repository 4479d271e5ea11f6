// libFuzzer's driver entry (compiler-rt, FuzzerInterface.h): runs the fuzzer from our own `main`.
// SwiftPM renames an executable's entry point (`<Target>_main`, linked as `main`), so the fuzz
// binary supplies that function and hands control to libFuzzer through this call.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
