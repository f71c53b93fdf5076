// port_owner.cc: see port_owner.h.
#include "grader/wire/port_owner.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "grader/base/process_memory.h"

namespace grader {
namespace {

constexpr const char* kListen = "0A";  // TCP_LISTEN, as /proc/net/tcp writes a socket's state

// The inodes of the sockets listening on `port` in one of /proc/net/tcp and tcp6. A line is
// "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...", addresses as HEX:PORT.
void listening_inodes(const char* table, int port, std::set<std::string>& inodes) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // the heading
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode))
      continue;
    const auto colon = local.rfind(':');
    if (state != kListen || colon == std::string::npos) continue;
    if (std::strtol(local.substr(colon + 1).c_str(), nullptr, 16) == port) inodes.insert(inode);
  }
}

}  // namespace

PortOwner port_owner(pid_t root, int port) {
  std::set<std::string> inodes;
  listening_inodes("/proc/net/tcp", port, inodes);
  listening_inodes("/proc/net/tcp6", port, inodes);
  if (inodes.empty()) return PortOwner::Unknown;
  for (pid_t pid : tree_pids(root)) {
    try {  // a process may end while its descriptors are read: then it holds nothing
      std::error_code error;
      for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", error)) {
        std::error_code unreadable;
        const std::string target = std::filesystem::read_symlink(fd.path(), unreadable).string();
        if (target.rfind("socket:[", 0) == 0 && inodes.count(target.substr(8, target.size() - 9)))
          return PortOwner::Tree;
      }
    } catch (const std::filesystem::filesystem_error&) {
    }
  }
  return PortOwner::Another;
}

}  // namespace grader
