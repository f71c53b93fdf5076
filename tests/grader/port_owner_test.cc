// port_owner_test.cc: whose socket listens on a port (grader/wire/port_owner.cc), with real sockets: one held
// by a child of this process (below it), one held by this process itself (not below it).
#include "grader/wire/port_owner.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>

namespace {

// A socket listening on a free loopback port; the port in *port.
int listening_socket(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 8) == 0);
  socklen_t size = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size);
  *port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

TEST_CASE("port owner: a port is the tree's only when a process below the root listens on it") {
  int own_port = 0;
  const int own = listening_socket(&own_port);
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // listens, says which port, and waits to be ended
    ::close(own);     // inherited: held by the child too, it would be the tree's as well
    int port = 0;
    const int fd = listening_socket(&port);
    (void)!::write(pipe_fds[1], &port, sizeof port);
    ::pause();
    ::close(fd);
    ::_exit(0);
  }
  int child_port = 0;
  REQUIRE(::read(pipe_fds[0], &child_port, sizeof child_port) == sizeof child_port);
  using grader::PortOwner;
  CHECK(grader::port_owner(::getpid(), child_port) == PortOwner::Tree);  // the child's socket: below this process
  CHECK(grader::port_owner(::getpid(), own_port) == PortOwner::Another); // this process's own: not below it
  CHECK(grader::port_owner(child, child_port) == PortOwner::Another);    // nothing below the child
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  CHECK(grader::port_owner(::getpid(), child_port) == PortOwner::Unknown);  // nothing listens there any more
  ::close(own);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}
