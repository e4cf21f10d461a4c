// file_service.cpp — files of one io_context: open/close, pending operations, blocking calls
#include <simasio/detail/file_service.hpp>

#include <simasio/basic_file.hpp>

#include <simasio/detail/disk/disk_model.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/disk.hpp>
#include <simasio/error.hpp>

#include <boost/asio/error.hpp>

#include <algorithm>
#include <fcntl.h>

namespace simasio::detail {

disk_model& disk_of(world_core& core, host_state& host) {
  if (!host.disk) host.disk = std::make_shared<disk_model>(core, host);
  return *host.disk;
}

int native_id(const file_impl& impl) noexcept { return impl.file ? static_cast<int>(impl.file->id) : -1; }

void throw_file_error(const boost::system::error_code& ec, const char* what, const std::string& path) {
  if (ec == error::host_down)
    throw boost::system::system_error(ec, std::string("simasio: file ") + what + " of '" + path +
                                              "': its host is down (a dead process cannot use its files)");
  throw boost::system::system_error(ec, std::string("file ") + what + " '" + path + "'");
}

void file_op_base::on_done(timed_event* ev) {
  auto* op = static_cast<file_op_base*>(ev->owner());
  op->impl_->service->finish(*op);
}

file_service::file_service(boost::asio::execution_context& ctx) : boost::asio::execution_context::service(ctx) {
  io_context& io = sim_context_of(ctx, "file");
  ctx_state_ = &access::state(io);
  ctx_state_->sources.push_back(this);
}

file_service::~file_service() {
  auto& sources = ctx_state_->sources;
  sources.erase(std::remove(sources.begin(), sources.end(), this), sources.end());
}

void file_service::construct(file_impl& impl, io_context& ctx, const char* kind) noexcept {
  impl.service = this;
  impl.ctx = &access::state(ctx);
  impl.incarnation = impl.ctx->host != nullptr ? impl.ctx->host->incarnation : 0;
  impl.kind = kind;
  impl.prev = nullptr;
  impl.next = files_;
  if (files_ != nullptr) files_->prev = &impl;
  files_ = &impl;
}

void file_service::destroy(file_impl& impl) noexcept {
  if (impl.ctx->core != nullptr && impl.file) {
    // Cancelled operations still complete (with operation_aborted), as Asio's do.
    while (impl.head != nullptr) cancel_op(*impl.head);
    os_close(impl);
  }
  if (impl.prev != nullptr) impl.prev->next = impl.next;
  else if (files_ == &impl) files_ = impl.next;
  if (impl.next != nullptr) impl.next->prev = impl.prev;
  impl.prev = impl.next = nullptr;
}

void file_service::move_construct(file_impl& to, file_impl& from) noexcept {
  construct(to, static_cast<io_context&>(context()), from.kind);
  to.ctx = from.ctx;
  to.incarnation = from.incarnation;
  to.file = std::move(from.file);
  to.path = std::move(from.path);
  to.flags = from.flags;
  to.position = from.position;
  to.head = from.head;
  to.tail = from.tail;
  from.head = from.tail = nullptr;
  from.file.reset();
  from.position = 0;
  if (from.ctx->core != nullptr && from.ctx->host != nullptr) from.incarnation = from.ctx->host->incarnation;
  for (file_op_base* op = to.head; op != nullptr; op = op->next_) op->impl_ = &to;
}

// The OS closes the file: no disk time, nothing made durable.
void file_service::os_close(file_impl& impl) noexcept {
  if (!impl.file) return;
  if (impl.ctx->core != nullptr && impl.ctx->host != nullptr && impl.ctx->host->disk)
    impl.ctx->host->disk->close(*impl.file);
  impl.file.reset();
  impl.position = 0;
}

bool file_service::usable(const file_impl& impl, disk_op kind, boost::system::error_code& ec) const {
  checked_core(*impl.ctx, impl.incarnation, impl.kind);
  ec.clear();
  if (!impl.file) {
    ec = boost::asio::error::bad_descriptor;
    return false;
  }
  const unsigned mode = impl.flags & O_ACCMODE;
  if ((kind == disk_op::read && mode == O_WRONLY) ||
      ((kind == disk_op::write || kind == disk_op::resize) && mode == O_RDONLY)) {
    ec = boost::asio::error::bad_descriptor;  // EBADF, as read(2) on a file not open for it
    return false;
  }
  return true;
}

// ---- blocking calls ---------------------------------------------------------------

void file_service::open(file_impl& impl, const std::string& path, unsigned flags, boost::system::error_code& ec) {
  world_core& core = checked_core(*impl.ctx, impl.incarnation, impl.kind);
  if (impl.file) {
    ec = boost::asio::error::already_open;
    return;
  }
  if (!impl.ctx->host->up) {
    ec = error::host_down;
    return;
  }
  if ((flags & O_ACCMODE) == O_ACCMODE) {
    ec = boost::asio::error::invalid_argument;
    return;
  }
  impl.incarnation = impl.ctx->host->incarnation;
  impl.file = disk_of(core, *impl.ctx->host).open(path, flags, ec);
  if (ec) return;
  impl.path = path;
  impl.flags = flags;
  impl.position = 0;
}

void file_service::close(file_impl& impl, boost::system::error_code& ec) {
  checked_core(*impl.ctx, impl.incarnation, impl.kind);
  ec.clear();
  while (impl.head != nullptr) cancel_op(*impl.head);
  os_close(impl);
}

void file_service::cancel(file_impl& impl, boost::system::error_code& ec) {
  checked_core(*impl.ctx, impl.incarnation, impl.kind);
  ec.clear();
  if (!impl.file) {
    ec = boost::asio::error::bad_descriptor;
    return;
  }
  while (impl.head != nullptr) cancel_op(*impl.head);
}

std::uint64_t file_service::size(const file_impl& impl, boost::system::error_code& ec) const {
  if (!usable(impl, disk_op::open, ec)) return 0;
  return impl.file->cache.size();
}

void file_service::resize(file_impl& impl, std::uint64_t n, boost::system::error_code& ec) {
  if (!usable(impl, disk_op::resize, ec)) return;
  disk_model& disk = *impl.ctx->host->disk;
  const duration due = disk.blocking_finish(disk_op::resize, 0);
  disk.resize(*impl.file, n, ec);
  disk.block_until(due);
}

void file_service::sync(file_impl& impl, boost::system::error_code& ec) {
  if (!usable(impl, disk_op::sync, ec)) return;
  disk_model& disk = *impl.ctx->host->disk;
  const duration due = disk.blocking_finish(disk_op::sync, disk.dirty_bytes(*impl.file));
  // Durable when it returns: a power cut while a process waits here keeps,
  // loses or tears what it was syncing (see posix_files.cpp's file_sync).
  disk.block_until(due);
  disk.sync(*impl.file, ec);
}

std::uint64_t file_service::seek(file_impl& impl, std::int64_t offset, int whence, boost::system::error_code& ec) {
  if (!usable(impl, disk_op::open, ec)) return 0;
  std::int64_t base = 0;
  switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = static_cast<std::int64_t>(impl.position); break;
    case SEEK_END: base = static_cast<std::int64_t>(impl.file->cache.size()); break;
    default: ec = boost::asio::error::invalid_argument; return 0;
  }
  if ((offset < 0 && base + offset < 0) ||
      (offset > 0 && static_cast<std::uint64_t>(offset) > disk_model::max_file_size - static_cast<std::uint64_t>(base))) {
    ec = boost::asio::error::invalid_argument;  // EINVAL, as lseek(2) before the start or past the largest file
    return 0;
  }
  impl.position = static_cast<std::uint64_t>(base + offset);
  return impl.position;
}

namespace {
std::size_t total_size(const boost::asio::mutable_buffer* bufs, std::size_t n) {
  std::size_t t = 0;
  for (std::size_t i = 0; i < n; ++i) t += bufs[i].size();
  return t;
}
}  // namespace

std::size_t file_service::transfer(file_impl& impl, disk_op kind, std::uint64_t offset, bool at_position,
                                   const boost::asio::mutable_buffer* bufs, std::size_t n,
                                   boost::system::error_code& ec) {
  if (!usable(impl, kind, ec)) return 0;
  if (total_size(bufs, n) == 0) return 0;
  world_core& core = *impl.ctx->core;
  if (core.in_process() && !core.may_block()) {
    ec = error::host_down;
    return 0;
  }
  disk_model& disk = *impl.ctx->host->disk;
  const duration due =
      disk.blocking_finish(kind, total_size(bufs, n), kind == disk_op::write && (impl.flags & O_SYNC) != 0);
  const std::size_t done = disk.transfer(*impl.file, impl.flags, impl.position, kind, offset, at_position, bufs, n, ec);
  disk.block_until(due);
  return done;
}

// ---- asynchronous operations -----------------------------------------------------------

void file_service::begin(file_impl& impl, file_op_base& op) {
  world_core& core = *impl.ctx->core;
  if (!usable(impl, op.kind_, op.ec_) || total_size(op.bufs_, op.nbufs_) == 0) {
    core.post_ready(*impl.ctx, &op);  // at once, never inline
    return;
  }
  disk_model& disk = *impl.ctx->host->disk;
  const std::size_t bytes = total_size(op.bufs_, op.nbufs_);
  const duration due = disk.finish_time(op.kind_, bytes, op.kind_ == disk_op::write && (impl.flags & O_SYNC) != 0);
  op.impl_ = &impl;
  op.prev_ = impl.tail;
  op.next_ = nullptr;
  if (impl.tail != nullptr) impl.tail->next_ = &op;
  else impl.head = &op;
  impl.tail = &op;
  op.event_.context_id = impl.ctx->id;
  core.schedule(op.event_, due);
}

void file_service::unlink(file_op_base& op) noexcept {
  file_impl& impl = *op.impl_;
  if (op.prev_ != nullptr) op.prev_->next_ = op.next_;
  else impl.head = op.next_;
  if (op.next_ != nullptr) op.next_->prev_ = op.prev_;
  else impl.tail = op.prev_;
  op.prev_ = op.next_ = nullptr;
  op.impl_ = nullptr;
}

void file_service::finish(file_op_base& op) noexcept {
  file_impl& impl = *op.impl_;
  context_state& ctx = *impl.ctx;
  unlink(op);
  op.bytes_ = ctx.host->disk->transfer(*impl.file, impl.flags, impl.position, op.kind_, op.offset_, op.at_position_,
                                       op.bufs_, op.nbufs_, op.ec_);
  ctx.core->post_ready(ctx, &op);
}

void file_service::cancel_op(file_op_base& op) noexcept {
  if (op.impl_ == nullptr) return;  // no longer pending
  context_state& ctx = *op.impl_->ctx;
  unlink(op);
  ctx.core->cancel(op.event_);
  op.ec_ = boost::asio::error::operation_aborted;
  op.bytes_ = 0;
  ctx.core->post_ready(ctx, &op);
}

void file_service::abandon() noexcept {
  // The process died: its pending operations never complete (the disk
  // never gets to them), and the OS closes its files.
  std::vector<file_op_base*> ops;
  for (file_impl* impl = files_; impl != nullptr; impl = impl->next) {
    while (impl->head != nullptr) {
      file_op_base* op = impl->head;
      unlink(*op);
      if (ctx_state_->core != nullptr) ctx_state_->core->cancel(op->event_);
      ops.push_back(op);
    }
    os_close(*impl);
  }
  for (file_op_base* op : ops) {
    op->destroy();
    --ctx_state_->work;
  }
}

void file_service::describe(std::vector<std::string>& out) const {
  for (const file_impl* impl = files_; impl != nullptr; impl = impl->next)
    for (const file_op_base* op = impl->head; op != nullptr; op = op->next_)
      out.push_back(std::string(impl->kind) + " " + to_string(op->kind_) + " of '" + impl->path + "', done at t=" +
                    format_time(op->event_.when()));
}

}  // namespace simasio::detail
