// group_commit.cc: see group_commit.h.
#include "common/group_commit.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/db.h"

namespace lab {

GroupCommit::~GroupCommit() {
  if (wal_fd_ >= 0) ::close(wal_fd_);
}

std::uint64_t GroupCommit::count_commit() {
  std::lock_guard lock(mutex_);
  return ++counted_;
}

std::uint64_t GroupCommit::last_commit() {
  std::lock_guard lock(mutex_);
  return counted_;
}

std::uint64_t GroupCommit::fsyncs() {
  std::lock_guard lock(mutex_);
  return fsyncs_;
}

void GroupCommit::wait_durable(std::uint64_t commit) {
  std::unique_lock lock(mutex_);
  while (durable_ < commit) {
    if (fsync_running_) {
      // It may have begun before our commit was written: wait for it to end, then look again.
      fsync_ended_.wait(lock);
      continue;
    }
    // Lead the next fsync. It covers every commit counted until now, since each was counted after its
    // frames were written to the WAL.
    fsync_running_ = true;
    std::uint64_t covers = counted_;
    lock.unlock();
    int error = sync_wal();
    lock.lock();
    fsync_running_ = false;
    if (error == 0) {
      durable_ = std::max(durable_, covers);
      ++fsyncs_;
    }
    fsync_ended_.notify_all();
    // The commit may or may not be on disk: the request gets a 500 and its retry decides (replay or re-run).
    if (error != 0)
      throw DatabaseError(SQLITE_IOERR_FSYNC, "fdatasync of " + wal_path_ + " failed: " + std::strerror(error));
  }
}

int GroupCommit::sync_wal() {
  // Only the leader of an fsync gets here (fsync_running_), so wal_fd_ has one writer at a time.
  if (wal_fd_ < 0) {
    wal_fd_ = ::open(wal_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (wal_fd_ < 0) return errno;
  }
  int rc;
  do rc = ::fdatasync(wal_fd_);
  while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

}  // namespace lab
