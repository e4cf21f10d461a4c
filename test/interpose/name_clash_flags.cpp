// name_clash_flags.cpp — a program's own globals named `send` and `connect` (no socket header here)
//
// With external linkage they clash with simasio::interpose's definitions of
// those functions at link time (the README's limit); file-local, as the way
// out says, they are the program's alone.
#if defined(SIMASIO_TEST_FILE_LOCAL_FLAGS)
static bool send = true;  // a flag, as a program may have one
static int connect = 3;
#else
bool send = true;
int connect = 3;
#endif

bool program_flags_ok() { return send && connect == 3; }
