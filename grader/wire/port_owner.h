// port_owner.h: whose socket listens on a port. docs/teach/grader-for-courses.md "Untrusted servers".
//
//   if (!listens_in_tree(keeper_pid, 41234)) ...   // another program answers on that port, not our server
//
// The grader picks a free port and gives it to the server it starts; between the pick and the server's own
// bind, another program on the machine (another grading, running at the same time) may take it. A GET
// /healthz answered 200 on the port then proves nothing: it may be that other program's answer, and a
// server that never listens would be graded as another one. The kernel says who listens: /proc/net/tcp and
// tcp6 give the listening socket's inode, and a process of the server's tree holds that socket among its
// file descriptors (/proc/<pid>/fd/N -> "socket:[inode]"). Linux only.
#pragma once

#include <sys/types.h>

namespace grader {

// Whether a process below `root` (grader/base/process_memory.h:tree_pids) holds the socket that listens on
// TCP port `port`, on any local address. False when nothing listens there.
bool listens_in_tree(pid_t root, int port);

}  // namespace grader
