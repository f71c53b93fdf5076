// guarded_server.cc: see guarded_server.h.
#include "common/guarded_server.h"

#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "common/problem.h"

namespace lab {
namespace {

thread_local ConnectionStream* serving = nullptr;
thread_local bool close_after_response = false;

// httplib's ThreadPool, counting the connections that wait for a worker and the workers that are busy.
class CountingPool final : public httplib::TaskQueue {
 public:
  CountingPool(std::size_t threads, std::atomic<int>& waiting, std::atomic<int>& busy)
      : waiting_(waiting), busy_(busy), pool_(threads) {}

  void enqueue(std::function<void()> serve_connection) override {
    ++waiting_;
    pool_.enqueue([this, serve_connection = std::move(serve_connection)] {
      --waiting_;
      ++busy_;
      serve_connection();
      --busy_;
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  std::atomic<int>& waiting_;
  std::atomic<int>& busy_;
  httplib::ThreadPool pool_;
};

// The whole answer for a connection the library cannot serve, written by hand: there is no request yet.
void answer_too_many_connections(int fd) {
  std::string body = Problem::Of(ProblemType::ServiceUnavailable, "the server has too many open connections")
                         .to_json()
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
                         "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)!::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
}

}  // namespace

GuardedServer::GuardedServer() {
  new_task_queue = [this] { return new CountingPool(kWorkerThreads, waiting_for_worker_, busy_workers_); };
  // What the library writes in each response's Keep-Alive header: say what this loop does.
  set_keep_alive_timeout(kKeepAliveIdle.count());
  set_keep_alive_max_count(kKeepAliveMaxCount);
}

bool GuardedServer::others_wait() const {
  return waiting_for_worker_ > 0 && busy_workers_ >= kWorkerThreads;
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  bool ok = false;
  if (sock >= FD_SETSIZE) {
    answer_too_many_connections(sock);
  } else {
    ConnectionStream connection(sock);
    auto stop_waiting = [this](std::chrono::milliseconds idle) {
      return svr_sock_ == INVALID_SOCKET || (others_wait() && idle >= kYieldWhenIdleFor);
    };
    for (std::size_t served = 0; served < kKeepAliveMaxCount; ++served) {
      if (svr_sock_ == INVALID_SOCKET || !connection.wait_for_request(kKeepAliveIdle, stop_waiting)) break;
      connection.begin_request();
      // The last request of this connection when others wait for a worker: its response says so.
      bool last = served + 1 == kKeepAliveMaxCount || others_wait();
      serving = &connection;
      close_after_response = false;
      bool connection_closed = false;   // set by the library for "Connection: close" and HTTP/1.0
      ok = process_request(connection, last, connection_closed, nullptr);
      bool close = last || connection_closed || close_after_response || connection.limit_hit() != ReadLimit::None;
      serving = nullptr;
      if (!ok || close) break;
    }
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

ConnectionStream* current_connection() { return serving; }

void close_after_this_response() {
  if (serving != nullptr) close_after_response = true;
}

bool closing_after_this_response() { return serving != nullptr && close_after_response; }

}  // namespace lab
