// group_commit.h: one fdatasync of the WAL for the commits of many requests (--sync full). docs/reference/plumbing.md
// "Performance", durability.
//
//   GroupCommit group(wal_path);
//   std::uint64_t mine = group.count_commit();   // right after a COMMIT (synchronous=NORMAL), under the write lock
//   ...release the write lock...
//   group.wait_durable(mine);                    // returns once an fdatasync begun after that commit has ended
//
// Why: at synchronous=FULL SQLite fsyncs the WAL inside every COMMIT, while the writer still holds the write
// lock, so writers queue behind each other's fsyncs: one fsync per commit, whatever the load. Here COMMIT only
// writes the WAL (synchronous=NORMAL), the lock is released, and every writer that committed while an fsync was
// running shares the next one. One fsync covers every write to the file made before it began, whoever made it
// (fdatasync syncs the file, not the descriptor), so the lab's own descriptor of the WAL is enough.
//
// What it does not do by itself: a commit is visible to readers before it is durable. Whatever is answered to
// a client must wait first (Database::wait_until_durable, called before a money route answers: lab.cc).
//
// Thread safety: every member may be called from any thread; state is guarded by mutex_.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace lab {

class GroupCommit {
 public:
  explicit GroupCommit(std::string wal_path) : wal_path_(std::move(wal_path)) {}
  ~GroupCommit();
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  std::uint64_t count_commit();                 // a commit was just written to the WAL: its number
  std::uint64_t last_commit();                  // the number of the latest commit counted
  void wait_durable(std::uint64_t commit);      // throws DatabaseError when the fdatasync fails
  std::uint64_t fsyncs();                       // fdatasync calls that succeeded so far

 private:
  int sync_wal();                               // 0, or the errno of open or fdatasync

  const std::string wal_path_;
  std::mutex mutex_;
  std::condition_variable fsync_ended_;
  std::uint64_t counted_ = 0;   // commits counted
  std::uint64_t durable_ = 0;   // every commit up to this number is on disk
  std::uint64_t fsyncs_ = 0;
  bool fsync_running_ = false;  // one fsync at a time: the others wait for it, then maybe run the next
  int wal_fd_ = -1;             // opened at the first fsync (the WAL exists once something was committed)
};

}  // namespace lab
