// name_clash_flags.cpp — the program's own globals named `send` and `connect` (no socket header here)
bool send = true;  // a flag, as a program may have one
int connect = 3;

bool program_flags_ok() { return send && connect == 3; }
