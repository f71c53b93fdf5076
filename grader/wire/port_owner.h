// port_owner.h: whose socket listens on a port. docs/teach/grader-for-courses.md "Untrusted servers".
//
//   if (port_owner(keeper_pid, 41234) == PortOwner::Another) ...   // another program answers there, not our server
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

// Who holds the socket that listens on TCP port `port` (any local address): a process below `root`
// (grader/base/process_memory.h:tree_pids), another one, or nobody the kernel's tables show (then nothing can be
// said: no listener, or tables this process cannot read; a caller that was answered on the port keeps it).
enum class PortOwner { Tree, Another, Unknown };
PortOwner port_owner(pid_t root, int port);

}  // namespace grader
