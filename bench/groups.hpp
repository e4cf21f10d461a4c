// groups.hpp — the benchmark groups, one file each.
#pragma once

#include "harness.hpp"

namespace bench {

void runtime_rows(const settings&, std::vector<row>&);  // handlers and timers vs boost::asio::io_context
void network_rows(const settings&, std::vector<row>&);  // TCP and UDP vs real loopback, memory
void beast_rows(const settings&, std::vector<row>&);    // Beast HTTP and websocket vs real loopback
void raft_rows(const settings&, std::vector<row>&);     // seeds/s of the Raft samples, jobs 1 and 2
void scale_rows(const settings&, std::vector<row>&);    // gossip over 10, 100, 1000 hosts
void cost_rows(const settings&, std::vector<row>&);     // trace hashing, tape, log ring on/off
void process_rows(const settings&, std::vector<row>&);  // simulated processes: switch cost, blocking clients
void disk_rows(const settings&, std::vector<row>&);     // simulated files vs real files on tmpfs, memory
void history_rows(const settings&, std::vector<row>&);  // check_linearizable on histories of 100..10,000 operations
void header_rows(const settings&, std::vector<row>&);  // compiling a program on simasio's headers vs Asio's
void posix_rows(const settings&, std::vector<row>&);  // POSIX calls and Asio's own io_context in processes
void isolation_rows(const settings&, std::vector<row>&);  // seeds/s with each seed in a process of its own, and without

}  // namespace bench
