// disk_model.cpp — one host's disk: namespace, page cache, medium, queue, faults, power cuts
#include <simasio/detail/disk/disk_model.hpp>

#include <simasio/detail/host_state.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/error.hpp>

#include <boost/asio/error.hpp>

#include "../runtime/name_hash.hpp"

#include <algorithm>
#include <cstring>
#include <fcntl.h>

namespace simasio::detail {

namespace {

namespace errc = boost::system::errc;

boost::system::error_code posix(errc::errc_t e) { return errc::make_error_code(e); }


std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

duration draw_latency(rng& r, duration lo, duration hi, const std::function<duration(rng&)>& dist) {
  if (dist) {
    const duration d = dist(r);
    return d < duration::zero() ? duration::zero() : d;
  }
  return r.between(lo, hi);
}

bool power_of_two(std::size_t n) noexcept { return n != 0 && (n & (n - 1)) == 0; }

}  // namespace

disk_model::disk_model(world_core& core, host_state& host)
    : core_(core),
      host_(host),
      garbage_(core.options().seed ^ name_hash(host.name) ^ 0xD1B54A32D192ED03ULL) {}

rng& disk_model::open_stream(stream s) {
  static constexpr const char* family[stream_count] = {"latency", "read-error", "write-error", "sync-error",
                                                       "latent",  "misdirect",  "corruption",  "power",
                                                       "overwrite"};
  streams_[s] = &core_.stream("disk:" + host_.name + ":" + family[s], choice_purpose::disk);
  return *streams_[s];
}

disk_model::~disk_model() {
  if (posix_open_ > 0) interpose::forget_posix_files(*this, false);
}

void disk_model::track_posix(int, bool opened) noexcept {
  if (opened) ++posix_open_;
  else if (posix_open_ > 0) --posix_open_;
}

void disk_model::close_posix_files() noexcept {
  if (posix_open_ == 0) return;
  interpose::forget_posix_files(*this, true);
  posix_open_ = 0;
}

void disk_model::configure(disk_config c) {
  auto bad = [](const std::string& what) {
    throw usage_error("simasio: disk_config: " + what);
  };
  if (c.read_min > c.read_max || c.write_min > c.write_max || c.sync_min > c.sync_max)
    bad("a latency's min is above its max (read_min/read_max, write_min/write_max, sync_min/sync_max)");
  if (c.read_min < duration::zero() || c.write_min < duration::zero() || c.sync_min < duration::zero())
    bad("a latency is negative");
  if (!power_of_two(c.sector_size) || !power_of_two(c.page_size) || c.page_size < c.sector_size)
    bad("sector_size and page_size must be powers of two, page_size at least sector_size (got " +
        std::to_string(c.sector_size) + " and " + std::to_string(c.page_size) + ")");
  if (c.sector_size != config_.sector_size && !inodes_.empty())
    bad("sector_size cannot change once the disk holds files; configure the disk before the first open");
  for (double p : {c.read_error, c.write_error, c.sync_error, c.latent_sector_error, c.misdirected_write,
                   c.corruption})
    if (!(p >= 0.0 && p <= 1.0)) bad("a fault probability is outside [0, 1]");
  if (c.dirty_expire < duration::zero()) bad("dirty_expire is negative");
  if (c.dirty_limit == 0) bad("dirty_limit is 0 (a file could hold no unsynced byte); use a positive size, or "
                              "std::numeric_limits<std::uint64_t>::max() for no limit");
  config_ = std::move(c);
}

void disk_model::record(event_kind k, std::uint64_t a, std::uint64_t b) { core_.record(k, host_.id, a, b); }

std::uint64_t disk_model::allocated(std::uint64_t size) const noexcept {
  const std::uint64_t s = config_.sector_size;
  return (size + s - 1) / s * s;
}

std::uint64_t disk_model::used() const noexcept {
  std::uint64_t n = 0;
  for (const auto& [id, f] : inodes_)
    if (f->links > 0 || f->open > 0) n += allocated(f->cache.size());
  return n;
}

bool disk_model::fits(std::uint64_t old_size, std::uint64_t new_size) const noexcept {
  if (allocated(new_size) <= allocated(old_size)) return true;
  return used() - allocated(old_size) + allocated(new_size) <= config_.capacity;
}

// ---- paths and names --------------------------------------------------------------

std::string disk_model::normalize(const std::string& path, boost::system::error_code& ec) {
  if (path.empty()) {
    ec = posix(errc::no_such_file_or_directory);
    return {};
  }
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i <= path.size()) {
    const std::size_t j = std::min(path.find('/', i), path.size());
    std::string part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(std::move(part));
    }
    i = j + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? std::string("/") : out;
}

inode* disk_model::find(const std::map<std::string, std::uint64_t>& names, const std::string& path) const {
  const auto it = names.find(path);
  if (it == names.end()) return nullptr;
  return inodes_.at(it->second).get();
}

bool disk_model::is_directory(const std::string& path) const {
  if (path == "/") return true;
  const std::string prefix = path + "/";
  const auto it = names_.lower_bound(prefix);
  return it != names_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

// A directory the program may still sync: it has entries, or had some that
// are not yet durably gone (its last file was just removed).
bool disk_model::known_directory(const std::string& dir) const {
  if (is_directory(dir)) return true;
  const std::string prefix = dir + "/";
  const auto it = durable_names_.lower_bound(prefix);
  if (it != durable_names_.end() && it->first.compare(0, prefix.size(), prefix) == 0) return true;
  for (const dir_op& op : journal_)
    for (const auto& entry : op.entries)
      if (entry.first.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

bool disk_model::under_file(const std::string& path) const {
  for (std::string p = parent_of(path); p != "/"; p = parent_of(p))
    if (names_.count(p) != 0) return true;
  return false;
}

void disk_model::set_entry(std::map<std::string, std::uint64_t>& names, const std::string& path, std::uint64_t id,
                           bool durable) {
  auto [it, inserted] = names.try_emplace(path, id);
  if (!inserted) {
    if (it->second == id) return;
    const std::uint64_t old = it->second;
    it->second = id;
    inode& o = *inodes_.at(old);
    --(durable ? o.durable_links : o.links);
    collect(old);
  }
  inode& n = *inodes_.at(id);
  ++(durable ? n.durable_links : n.links);
}

void disk_model::erase_entry(std::map<std::string, std::uint64_t>& names, const std::string& path, bool durable) {
  const auto it = names.find(path);
  if (it == names.end()) return;
  const std::uint64_t id = it->second;
  names.erase(it);
  inode& o = *inodes_.at(id);
  --(durable ? o.durable_links : o.links);
  collect(id);
}

// A file no name and no open handle reaches is gone (the inode stays in
// memory for a stale handle's sake, through its shared_ptr).
void disk_model::collect(std::uint64_t id) {
  const auto it = inodes_.find(id);
  if (it == inodes_.end()) return;
  const inode& f = *it->second;
  if (f.links == 0 && f.durable_links == 0 && f.open == 0 && f.journal_refs == 0) inodes_.erase(it);
}

void disk_model::journal(dir_op op) {
  op.at_ns = core_.now().count();
  for (const auto& [path, id] : op.entries)
    if (id != 0) ++inodes_.at(id)->journal_refs;
  journal_.push_back(std::move(op));
}

std::shared_ptr<inode> disk_model::open(const std::string& raw, unsigned flags, boost::system::error_code& ec) {
  ec.clear();
  const std::string path = normalize(raw, ec);
  if (ec) return nullptr;
  if (path == "/" || is_directory(path)) {
    ec = posix(errc::is_a_directory);
    return nullptr;
  }
  if (under_file(path)) {
    ec = posix(errc::not_a_directory);
    return nullptr;
  }
  const auto it = names_.find(path);
  std::shared_ptr<inode> f;
  if (it == names_.end()) {
    if ((flags & O_CREAT) == 0) {
      ec = posix(errc::no_such_file_or_directory);
      return nullptr;
    }
    f = std::make_shared<inode>();
    f->id = next_inode_++;
    inodes_.emplace(f->id, f);
    set_entry(names_, path, f->id, false);
    journal(dir_op{{{path, f->id}}});
  } else {
    if ((flags & O_CREAT) != 0 && (flags & O_EXCL) != 0) {
      ec = posix(errc::file_exists);
      return nullptr;
    }
    f = inodes_.at(it->second);
  }
  ++f->open;
  record(event_kind::disk_io, static_cast<std::uint64_t>(disk_op::open), f->id);
  if ((flags & O_TRUNC) != 0 && (flags & O_ACCMODE) != O_RDONLY && !f->cache.empty()) {
    boost::system::error_code ignored;
    resize(*f, 0, ignored);
  }
  return f;
}

void disk_model::close(inode& f) noexcept {
  if (f.open > 0) --f.open;
  collect(f.id);
}

void disk_model::rename(const std::string& raw_from, const std::string& raw_to, boost::system::error_code& ec) {
  ec.clear();
  const std::string from = normalize(raw_from, ec);
  if (ec) return;
  const std::string to = normalize(raw_to, ec);
  if (ec) return;
  const auto it = names_.find(from);
  if (it == names_.end()) {
    ec = posix(is_directory(from) ? errc::operation_not_supported : errc::no_such_file_or_directory);
    return;
  }
  if (to == "/" || is_directory(to)) {
    ec = posix(errc::is_a_directory);
    return;
  }
  if (under_file(to)) {
    ec = posix(errc::not_a_directory);
    return;
  }
  record(event_kind::disk_io, static_cast<std::uint64_t>(disk_op::rename), it->second);
  if (from == to) return;
  const std::uint64_t id = it->second;
  journal(dir_op{{{from, 0}, {to, id}}});  // also keeps the inode while neither name holds it
  erase_entry(names_, from, false);
  set_entry(names_, to, id, false);
}

void disk_model::remove(const std::string& raw, boost::system::error_code& ec) {
  ec.clear();
  const std::string path = normalize(raw, ec);
  if (ec) return;
  const auto it = names_.find(path);
  if (it == names_.end()) {
    ec = posix(is_directory(path) ? errc::is_a_directory : errc::no_such_file_or_directory);
    return;
  }
  record(event_kind::disk_io, static_cast<std::uint64_t>(disk_op::remove), it->second);
  journal(dir_op{{{path, 0}}});
  erase_entry(names_, path, false);
}

void disk_model::sync_directory(const std::string& raw, boost::system::error_code& ec) {
  ec.clear();
  const std::string dir = normalize(raw, ec);
  if (ec) return;
  if (names_.count(dir) != 0) {
    ec = posix(errc::not_a_directory);
    return;
  }
  if (!known_directory(dir)) {
    ec = posix(errc::no_such_file_or_directory);
    return;
  }
  record(event_kind::disk_io, static_cast<std::uint64_t>(disk_op::sync_directory), 0);
  // A journal commits in order: every operation up to the last one that
  // touched dir becomes durable, whole (a rename out of dir with it).
  std::size_t upto = 0;
  for (std::size_t i = 0; i < journal_.size(); ++i)
    for (const auto& entry : journal_[i].entries)
      if (parent_of(entry.first) == dir) upto = i + 1;
  commit(upto);
}

void disk_model::commit(std::size_t n) {
  std::vector<std::uint64_t> released;
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& [path, id] : journal_[i].entries) {
      if (id != 0) {
        set_entry(durable_names_, path, id, true);
        --inodes_.at(id)->journal_refs;
        released.push_back(id);
      } else {
        erase_entry(durable_names_, path, true);
      }
    }
  }
  journal_.erase(journal_.begin(), journal_.begin() + static_cast<std::ptrdiff_t>(n));
  for (std::uint64_t id : released) collect(id);
}

bool disk_model::exists(const std::string& raw) const {
  boost::system::error_code ec;
  const std::string path = normalize(raw, ec);
  return !ec && (names_.count(path) != 0 || is_directory(path));
}

std::vector<std::string> disk_model::list(const std::string& raw) const {
  boost::system::error_code ec;
  const std::string dir = normalize(raw, ec);
  std::vector<std::string> out;
  if (ec) return out;
  const std::string prefix = dir == "/" ? "/" : dir + "/";
  for (auto it = names_.lower_bound(prefix); it != names_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    std::string rest = it->first.substr(prefix.size());
    rest = rest.substr(0, rest.find('/'));
    if (out.empty() || out.back() != rest) out.push_back(std::move(rest));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::uint64_t disk_model::file_size(const std::string& raw, boost::system::error_code& ec) const {
  ec.clear();
  const std::string path = normalize(raw, ec);
  if (ec) return 0;
  const inode* f = find(names_, path);
  if (f == nullptr) {
    ec = posix(is_directory(path) ? errc::is_a_directory : errc::no_such_file_or_directory);
    return 0;
  }
  return f->cache.size();
}

// ---- data ------------------------------------------------------------------------

std::size_t disk_model::read(inode& f, std::uint64_t offset, const boost::asio::mutable_buffer* bufs, std::size_t n,
                             boost::system::error_code& ec) {
  ec.clear();
  std::size_t want = 0;
  for (std::size_t i = 0; i < n; ++i) want += bufs[i].size();
  if (want == 0) return 0;
  if (offset >= f.cache.size()) {
    ec = boost::asio::error::eof;
    return 0;
  }
  if (draw(read_error_stream).chance(world_core::with_mix(config_.read_error, core_.faults().disk_faults))) {
    record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::read_error), f.id);
    ec = posix(errc::io_error);
    return 0;
  }
  const std::uint64_t end = std::min<std::uint64_t>(f.cache.size(), offset + want);
  if (!f.uncached.empty()) {
    const auto bad = f.uncached.lower_bound(sector_of(offset));
    if (bad != f.uncached.end() && *bad <= sector_of(end - 1)) {
      record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::unreadable), f.id);
      ec = posix(errc::io_error);
      return 0;
    }
  }
  std::size_t done = 0;
  const std::size_t total = static_cast<std::size_t>(end - offset);
  for (std::size_t i = 0; i < n && done < total; ++i) {
    const std::size_t k = std::min(bufs[i].size(), total - done);
    std::memcpy(bufs[i].data(), f.cache.data() + offset + done, k);
    done += k;
  }
  record(event_kind::disk_io, static_cast<std::uint64_t>(disk_op::read), f.id);
  return done;
}

std::size_t disk_model::write(inode& f, std::uint64_t offset, const boost::asio::mutable_buffer* bufs,
                              std::size_t n, bool sync_after, boost::system::error_code& ec) {
  ec.clear();
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) total += bufs[i].size();
  if (total == 0) return 0;
  if (offset > max_file_size || total > max_file_size - offset) {
    ec = posix(errc::file_too_large);  // EFBIG: past what the file system holds
    return 0;
  }
  // A partial write into a sector the cache lost and the medium cannot
  // give back fails, as the kernel's read-modify-write of the page would.
  if (!f.uncached.empty()) {
    const std::uint64_t ss = config_.sector_size;
    for (const std::uint64_t edge : {offset, offset + total - 1}) {
      const std::uint64_t s = sector_of(edge);
      const bool whole = offset <= s * ss && offset + total >= (s + 1) * ss;
      if (!whole && f.uncached.count(s) != 0) {
        record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::unreadable), f.id);
        ec = posix(errc::io_error);
        return 0;
      }
    }
  }
  if (draw(write_error_stream).chance(world_core::with_mix(config_.write_error, core_.faults().disk_faults))) {
    record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::write_error), f.id);
    ec = posix(errc::io_error);
    return 0;
  }
  const std::uint64_t old_size = f.cache.size();
  const std::uint64_t new_size = std::max<std::uint64_t>(old_size, offset + total);
  if (!fits(old_size, new_size)) {
    record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::no_space), f.id);
    ec = posix(errc::no_space_on_device);
    return 0;
  }
  disk_change c;
  c.first_sector = sector_of(offset);
  c.sectors = sector_of(offset + total - 1) - c.first_sector + 1;
  c.size_after = new_size;
  c.at_ns = core_.now().count();
  // The pending writes under this one: settled when it covers them whole,
  // else given their own copy of what the cache holds for them now.
  if (!f.dirty_pages.empty()) {
    if (f.pending_resizes == 0) supersede(f, c);
    keep_versions_under(f, c);
  }
  if (new_size > old_size) f.cache.resize(static_cast<std::size_t>(new_size));
  std::size_t done = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(f.cache.data() + offset + done, bufs[i].data(), bufs[i].size());
    done += bufs[i].size();
  }
  // What was written, and where, in the trace's hash (SIMASIO_VERIFY).
  core_.events().fold_bytes(trace::hash_bytes(f.cache.data() + offset, static_cast<std::size_t>(total),
                                              (f.id << 20) ^ (static_cast<std::uint64_t>(host_.id) << 52) ^ offset));
  // c.bytes stays empty: its sectors are read from the cache for as long
  // as it is the newest version there (copy on write).
  const std::uint64_t ss = config_.sector_size;
  const std::uint64_t from = c.first_sector * ss;
  const std::uint64_t to = std::min<std::uint64_t>(new_size, (c.first_sector + c.sectors) * ss);
  // The page now in the cache is read from there, not from a bad sector.
  if (!f.uncached.empty())
    for (std::uint64_t s = c.first_sector; s < c.first_sector + c.sectors; ++s) f.uncached.erase(s);
  if (rng& latent = draw(latent_stream); latent.chance(config_.latent_sector_error)) {
    c.bad_sector = static_cast<std::int64_t>(c.first_sector + latent.below(c.sectors));
    record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::latent_sector), f.id);
  }
  if (rng& medium = draw(misdirect_stream); medium.chance(config_.misdirected_write)) {
    const std::uint64_t file_sectors = (new_size + ss - 1) / ss;
    // Somewhere else in the file where the whole snapshot fits.
    const std::uint64_t slots = file_sectors - c.sectors + 1;
    if (slots > 1) {
      std::uint64_t target = medium.below(slots - 1);
      if (target >= c.first_sector) ++target;
      c.misdirect_to = static_cast<std::int64_t>(target);
      record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::misdirected), f.id);
    }
  }
  if (rng& corrupt = draw(corruption_stream); corrupt.chance(config_.corruption)) {
    c.corrupt_bit = static_cast<std::int64_t>(corrupt.below((to - from) * 8));  // in the file, not the padding
    record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::corruption), f.id);
  }
  push_change(f, std::move(c));
  record(event_kind::disk_io, static_cast<std::uint64_t>(disk_op::write), f.id);
  if (sync_after) {
    boost::system::error_code sync_ec;
    sync(f, sync_ec);
    if (sync_ec) ec = sync_ec;  // O_SYNC: the write is reported failed, though the cache has it
  }
  return ec ? 0 : total;
}

std::size_t disk_model::transfer(inode& f, unsigned flags, std::uint64_t& position, disk_op kind,
                                 std::uint64_t offset, bool at_position, const boost::asio::mutable_buffer* bufs,
                                 std::size_t n, boost::system::error_code& ec) {
  if (kind == disk_op::write && (flags & O_APPEND) != 0) offset = f.cache.size();
  else if (at_position) offset = position;
  const std::size_t done = kind == disk_op::read ? read(f, offset, bufs, n, ec)
                                                 : write(f, offset, bufs, n, (flags & O_SYNC) != 0, ec);
  if (at_position && done > 0) position = offset + done;
  return done;
}

void disk_model::resize(inode& f, std::uint64_t size, boost::system::error_code& ec) {
  ec.clear();
  if (size > max_file_size) {
    ec = posix(errc::file_too_large);
    return;
  }
  const std::uint64_t old_size = f.cache.size();
  if (!fits(old_size, size)) {
    record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::no_space), f.id);
    ec = posix(errc::no_space_on_device);
    return;
  }
  for (disk_change& c : f.unsynced) own_copy(f, c);  // the cache is about to lose or zero what they wrote
  f.cache.resize(static_cast<std::size_t>(size));
  f.uncached.erase(f.uncached.lower_bound(sector_of(size + config_.sector_size - 1)), f.uncached.end());
  disk_change c;
  c.size_after = size;
  c.at_ns = core_.now().count();
  push_change(f, std::move(c));
  record(event_kind::disk_io, static_cast<std::uint64_t>(disk_op::resize), f.id);
}

void disk_model::push_change(inode& f, disk_change c) {
  f.dirty += c.sectors * config_.sector_size;
  const std::uint64_t seq = f.first_seq + f.unsynced.size();
  if (c.sectors == 0) {
    ++f.pending_resizes;
  } else {
    const auto [first, last] = pages_of(c);
    for (std::uint64_t p = first; p <= last; ++p) {
      dirty_page& d = f.dirty_pages[p];
      ++d.writers;
      d.newest = seq;
    }
  }
  f.unsynced.push_back(std::move(c));
  write_back_expired(f, false);
  // Much dirty data: the oldest goes to the medium until half the limit
  // remains (Linux's background write-back), before it expires.
  if (f.dirty > config_.dirty_limit)
    while (!f.unsynced.empty() && f.dirty > config_.dirty_limit / 2) write_back_oldest(f);
}

// The oldest unsynced change of f reaches the medium.
void disk_model::write_back_oldest(inode& f) {
  apply(f, f.medium, f.unsynced.front(), nullptr);
  pop_oldest(f);
}

// The oldest unsynced change leaves the queue, and those overwritten
// behind it.
void disk_model::pop_oldest(inode& f) {
  const disk_change& c = f.unsynced.front();
  if (!c.gone) {
    f.dirty -= c.sectors * config_.sector_size;
    if (c.sectors == 0) {
      --f.pending_resizes;
    } else {
      const auto [first, last] = pages_of(c);
      for (std::uint64_t p = first; p <= last; ++p)
        if (const auto it = f.dirty_pages.find(p); it != f.dirty_pages.end() && --it->second.writers == 0)
          f.dirty_pages.erase(it);
    }
  }
  f.unsynced.pop_front();
  ++f.first_seq;
  skip_gone(f);
}

const std::byte* disk_model::change_data(const inode& f, const disk_change& c, std::uint64_t& available) const noexcept {
  if (!c.bytes.empty()) {
    available = c.bytes.size();
    return c.bytes.data();
  }
  const std::uint64_t from = c.first_sector * config_.sector_size;
  available = f.cache.size() > from ? f.cache.size() - from : 0;
  return f.cache.data() + std::min<std::uint64_t>(from, f.cache.size());
}

// A pending change reads its sectors from the cache while it is the newest
// version there; before a write or a size change alters them, it takes its
// own copy (zeros past the end of the file, as Linux keeps a page).
void disk_model::own_copy(inode& f, disk_change& c) {
  if (c.gone || c.sectors == 0 || !c.bytes.empty()) return;
  const std::uint64_t ss = config_.sector_size;
  const std::uint64_t from = std::min<std::uint64_t>(c.first_sector * ss, f.cache.size());
  const std::uint64_t to = std::min<std::uint64_t>((c.first_sector + c.sectors) * ss, f.cache.size());
  c.bytes.assign(f.cache.begin() + static_cast<std::ptrdiff_t>(from), f.cache.begin() + static_cast<std::ptrdiff_t>(to));
  c.bytes.resize(static_cast<std::size_t>(c.sectors * ss), std::byte{0});
}

// Before `newer` changes the cache: the newest pending version of each
// page it touches takes its own copy (an older one already has, when the
// newest arrived over it).
void disk_model::keep_versions_under(inode& f, const disk_change& newer) {
  const auto [first, last] = pages_of(newer);
  for (std::uint64_t p = first; p <= last; ++p)
    if (const auto it = f.dirty_pages.find(p); it != f.dirty_pages.end())
      own_copy(f, f.unsynced[static_cast<std::size_t>(it->second.newest - f.first_seq)]);
}

// The queue starts at a change still pending.
void disk_model::skip_gone(inode& f) noexcept {
  while (!f.unsynced.empty() && f.unsynced.front().gone) {
    f.unsynced.pop_front();
    ++f.first_seq;
  }
}

// Every unsynced change is settled (synced, lost with its error, or
// resolved by a power cut).
void disk_model::forget_unsynced(inode& f) noexcept {
  f.first_seq += f.unsynced.size();
  f.unsynced.clear();
  f.dirty_pages.clear();
  f.pending_resizes = 0;
  f.dirty = 0;
}

// A write about to cover, whole, an older unsynced write that alone
// touches its pages: the page cache holds one version of a page, so the
// older one either went back to the medium before this write (written
// back; drawn) or never can (overwritten). Linux cannot tear it later
// either: a write-back under way at a power cut carries the page as the
// cache holds it then. So it is settled now, before the newer one changes
// the cache. An older change still pending on those pages, or a size
// change, keeps them in order: nothing is settled then.
void disk_model::supersede(inode& f, const disk_change& newer) {
  const std::uint64_t end = newer.first_sector + newer.sectors;
  const auto [newer_first, newer_last] = pages_of(newer);
  for (std::uint64_t p = newer_first; p <= newer_last; ++p) {
    const auto it = f.dirty_pages.find(p);
    if (it == f.dirty_pages.end() || it->second.writers != 1) continue;
    disk_change& old = f.unsynced[static_cast<std::size_t>(it->second.newest - f.first_seq)];
    if (old.gone || old.misdirect_to >= 0 || old.first_sector < newer.first_sector || old.first_sector + old.sectors > end)
      continue;
    const auto [first, last] = pages_of(old);
    bool alone = true;
    for (std::uint64_t q = first; q <= last && alone; ++q) alone = f.dirty_pages[q].writers == 1;
    if (!alone) continue;
    const bool went_back = draw(overwrite_stream).below(2) == 0;
    if (went_back) apply(f, f.medium, old, nullptr);
    record(event_kind::disk_resolve,
           static_cast<std::uint64_t>(went_back ? disk_outcome::written_back : disk_outcome::overwritten), f.id);
    for (std::uint64_t q = first; q <= last; ++q) f.dirty_pages.erase(q);
    f.dirty -= old.sectors * config_.sector_size;
    old.bytes = {};
    old.gone = true;
    skip_gone(f);
  }
}

// The OS writes dirty data back once it is dirty_expire old: those changes
// are on the medium whatever happens next.
void disk_model::write_back_expired(inode& f, bool at_power_cut) {
  if (config_.dirty_expire == duration::max()) return;
  const std::int64_t now = core_.now().count();
  const std::int64_t age = config_.dirty_expire.count();
  while (!f.unsynced.empty() && f.unsynced.front().at_ns <= now - age) {
    write_back_oldest(f);
    if (at_power_cut) record(event_kind::disk_resolve, static_cast<std::uint64_t>(disk_outcome::written_back), f.id);
  }
}

std::uint64_t disk_model::dirty_bytes(const inode& f) const noexcept { return f.dirty; }

void disk_model::sync(inode& f, boost::system::error_code& ec) {
  ec.clear();
  record(event_kind::disk_io, static_cast<std::uint64_t>(disk_op::sync), f.id);
  if (draw(sync_error_stream).chance(world_core::with_mix(config_.sync_error, core_.faults().disk_faults))) {
    // Linux marks the pages clean after a failed write-back: the data stays
    // in the cache, never reaches the medium, and the next fsync succeeds.
    record(event_kind::disk_fault, static_cast<std::uint64_t>(disk_fault_kind::sync_error), f.id);
    forget_unsynced(f);
    ec = posix(errc::io_error);
    return;
  }
  for (const disk_change& c : f.unsynced)
    if (!c.gone) apply(f, f.medium, c, nullptr);
  forget_unsynced(f);
}

void disk_model::fill_garbage(std::byte* p, std::size_t n) noexcept {
  while (n > 0) {
    const std::uint64_t w = garbage_();
    const std::size_t k = std::min<std::size_t>(n, 8);
    std::memcpy(p, &w, k);
    p += k;
    n -= k;
  }
}

// Sectors a power cut finds allocated but never written hold garbage; the
// rest of the old last sector was written with it, zeros past the old end.
void disk_model::garbage_from(std::vector<std::byte>& img, std::size_t old_size) noexcept {
  const std::size_t ss = config_.sector_size;
  const std::size_t boundary = std::min(img.size(), (old_size + ss - 1) / ss * ss);
  if (boundary < img.size()) fill_garbage(img.data() + boundary, img.size() - boundary);
}

void disk_model::apply(inode& f, std::vector<std::byte>& img, const disk_change& c,
                       const std::vector<std::uint8_t>* keep) {
  const std::uint64_t ss = config_.sector_size;
  if (c.sectors == 0) {
    img.resize(static_cast<std::size_t>(c.size_after));
    f.bad.erase(f.bad.lower_bound(sector_of(c.size_after + ss - 1)), f.bad.end());  // truncated away
    return;
  }
  const bool power_cut = keep != nullptr;
  if (img.size() < c.size_after) {
    const std::size_t old = img.size();
    img.resize(static_cast<std::size_t>(c.size_after));
    if (power_cut) garbage_from(img, old);
  }
  const std::uint64_t at = c.misdirect_to >= 0 ? static_cast<std::uint64_t>(c.misdirect_to) : c.first_sector;
  std::uint64_t available = 0;
  const std::byte* data = change_data(f, c, available);
  if (!power_cut) {
    // Every sector kept: one copy of the run of sectors, as the loop below
    // would make sector by sector (only the last one can be cut by the
    // image's end).
    const std::uint64_t begin = at * ss;
    if (begin < img.size()) {
      const std::uint64_t len = std::min<std::uint64_t>(c.sectors * ss, img.size() - begin);
      const std::uint64_t copied = std::min(len, available);
      if (copied > 0) std::memcpy(img.data() + begin, data, static_cast<std::size_t>(copied));
      std::memset(img.data() + begin + copied, 0, static_cast<std::size_t>(len - copied));
      if (c.corrupt_bit >= 0 && static_cast<std::uint64_t>(c.corrupt_bit) / 8 < len) {
        const auto bit = static_cast<std::uint64_t>(c.corrupt_bit);
        img[begin + bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
      }
      if (!f.bad.empty())
        for (std::uint64_t i = 0; i < c.sectors && (at + i) * ss < img.size(); ++i) f.bad.erase(at + i);
    }
    if (c.bad_sector >= 0) f.bad.insert(static_cast<std::uint64_t>(c.bad_sector) - c.first_sector + at);
    return;
  }
  for (std::uint64_t i = 0; i < c.sectors; ++i) {
    const std::uint8_t how = keep == nullptr ? 1 : (*keep)[i];
    if (how == 0) continue;
    const std::uint64_t src = i * ss;
    const std::uint64_t dst = (at + i) * ss;
    if (dst >= img.size()) break;
    const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(ss, img.size() - dst));
    if (how == 2) {
      fill_garbage(img.data() + dst, k);
    } else {
      const std::size_t copied = static_cast<std::size_t>(std::min<std::uint64_t>(k, available > src ? available - src : 0));
      if (copied > 0) std::memcpy(img.data() + dst, data + src, copied);
      std::memset(img.data() + dst + copied, 0, k - copied);  // past the end of the file when written
      if (c.corrupt_bit >= 0) {
        const auto bit = static_cast<std::uint64_t>(c.corrupt_bit);
        if (bit / 8 >= src && bit / 8 < src + k)
          img[dst + bit / 8 - src] ^= static_cast<std::byte>(1u << (bit % 8));
      }
      if (!f.bad.empty()) f.bad.erase(at + i);  // rewritten whole: readable again
    }
  }
  if (c.bad_sector >= 0) {
    const std::uint64_t s = static_cast<std::uint64_t>(c.bad_sector) - c.first_sector + at;
    if (keep == nullptr || (*keep)[static_cast<std::size_t>(static_cast<std::uint64_t>(c.bad_sector) - c.first_sector)] != 0)
      f.bad.insert(s);
  }
}

// ---- time ------------------------------------------------------------------------

duration disk_model::finish_time(disk_op op, std::uint64_t bytes, bool then_sync) {
  // A handler that already blocked on the disk issues this call once that
  // call returned: its thread's time, not the world's.
  duration now = core_.now();
  if (!core_.in_process())
    if (const context_state* ctx = core_.current(); ctx != nullptr && ctx->busy)
      now = std::max(now, ctx->busy_end->when());
  duration start = std::max(now, next_start_);
  if (config_.iops > 0) next_start_ = start + duration(static_cast<std::int64_t>(1'000'000'000 / config_.iops));
  rng& r = draw(latency_stream);
  duration latency;
  switch (op) {
    case disk_op::read: latency = draw_latency(r, config_.read_min, config_.read_max, config_.read_latency); break;
    case disk_op::sync:
    case disk_op::sync_directory:
      latency = draw_latency(r, config_.sync_min, config_.sync_max, config_.sync_latency);
      break;
    default: latency = draw_latency(r, config_.write_min, config_.write_max, config_.write_latency); break;
  }
  if (then_sync)  // O_SYNC: the write, then its flush, in one slot of the queue
    latency = deadline_after(latency, draw_latency(r, config_.sync_min, config_.sync_max, config_.sync_latency));
  if (config_.bandwidth > 0 && bytes > 0) {
    const auto transfer = duration(static_cast<std::int64_t>(
        std::min(static_cast<long double>(bytes) * 1e9L / static_cast<long double>(config_.bandwidth), 1e18L)));
    const duration begin = std::max(start, channel_free_);
    channel_free_ = deadline_after(begin, transfer);
    start = channel_free_;
  }
  return deadline_after(start, latency);
}

duration disk_model::blocking_finish(disk_op op, std::uint64_t bytes, bool then_sync) {
  // From the test body a call takes no virtual time, and no place in the queue.
  if (!core_.in_process() && core_.current() == nullptr) return core_.now();
  return finish_time(op, bytes, then_sync);
}

void disk_model::block_until(duration until) {
  if (core_.in_process()) {
    if (core_.may_block()) core_.sleep_until(until);
    return;
  }
  if (context_state* ctx = core_.current()) core_.occupy(*ctx, until);
}

// ---- power and cache ----------------------------------------------------------

void disk_model::resolve(inode& f) {
  write_back_expired(f, true);
  if (!f.unsynced.empty()) {
    std::vector<std::byte> img = f.medium;
    std::uint64_t size = img.size();
    rng& r = draw(power_stream);
    std::vector<std::uint8_t> keep;
    for (const disk_change& c : f.unsynced) {
      if (c.gone) continue;
      if (c.sectors == 0) {  // a size change: the metadata made it or not
        const bool kept = r.below(2) == 0;
        if (kept) {
          apply(f, img, c, nullptr);
          size = c.size_after;
        }
        record(event_kind::disk_resolve, static_cast<std::uint64_t>(kept ? disk_outcome::kept : disk_outcome::lost),
               f.id);
        continue;
      }
      // 0 kept whole (the polite outcome), 1 lost, 2 torn across its sectors.
      const std::uint64_t how = r.below(3);
      keep.assign(static_cast<std::size_t>(c.sectors), how == 1 ? 0 : 1);
      bool any = how != 1;
      if (how == 2) {
        any = false;
        for (auto& k : keep) {
          k = static_cast<std::uint8_t>(config_.atomic_sectors ? 1 - r.below(2) : (3 - r.below(3)) % 3);
          any = any || k != 0;
        }
      }
      if (any) {
        apply(f, img, c, &keep);
        size = c.size_after;
      }
      const disk_outcome o = how == 0 ? disk_outcome::kept : how == 1 ? disk_outcome::lost : disk_outcome::torn;
      record(event_kind::disk_resolve, static_cast<std::uint64_t>(o), f.id);
    }
    if (img.size() < size) {
      const std::size_t old = img.size();
      img.resize(static_cast<std::size_t>(size));
      garbage_from(img, old);
    }
    img.resize(static_cast<std::size_t>(size));
    f.medium = std::move(img);
    forget_unsynced(f);
  }
  f.cache = f.medium;
  f.uncached = f.bad;
}

void disk_model::power_cut() {
  next_start_ = channel_free_ = core_.now();  // the queue died with the power
  interpose::forget_mappings(*this, 0, 0);    // shared memory is gone with the power
  // Directory operations: the journal keeps a prefix of the unsynced ones
  // (drawn: how many are lost from the end; the polite 0 keeps them all),
  // at least those the OS committed already.
  const std::size_t n = journal_.size();
  std::size_t committed = 0;  // by the OS's periodic commit: as old as dirty_expire
  if (config_.dirty_expire != duration::max())
    while (committed < n && journal_[committed].at_ns <= core_.now().count() - config_.dirty_expire.count())
      ++committed;
  const std::size_t lost = static_cast<std::size_t>(draw(power_stream).below(n - committed + 1));
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t named = 0;
    for (const auto& entry : journal_[i].entries)
      if (entry.second != 0) named = entry.second;
    record(event_kind::disk_resolve,
           static_cast<std::uint64_t>(i < n - lost ? disk_outcome::entry_kept : disk_outcome::entry_lost), named);
  }
  commit(n - lost);
  for (const dir_op& op : journal_)  // the lost ones
    for (const auto& [path, id] : op.entries)
      if (id != 0) --inodes_.at(id)->journal_refs;  // collected below
  journal_.clear();
  // The live namespace is now the medium's. Keep inodes alive while relinking.
  for (auto& [id, f] : inodes_) f->open += 1;
  for (auto it = names_.begin(); it != names_.end();) {
    inodes_.at(it->second)->links--;
    it = names_.erase(it);
  }
  for (const auto& [path, id] : durable_names_) set_entry(names_, path, id, false);
  std::vector<std::uint64_t> ids;
  for (auto& [id, f] : inodes_) {
    f->open = 0;  // every process of the host died: no file is open
    ids.push_back(id);
  }
  for (std::uint64_t id : ids) {
    collect(id);
    const auto it = inodes_.find(id);
    if (it != inodes_.end()) resolve(*it->second);
  }
}

void disk_model::drop_caches() {
  for (auto& [id, fp] : inodes_) {
    inode& f = *fp;
    write_back_expired(f, false);
    if (f.unsynced.empty()) {
      f.cache = f.medium;
      f.uncached = f.bad;
      continue;
    }
    // Dirty pages stay (a page with one dirty sector is dirty); clean ones
    // are read again from the medium.
    std::set<std::uint64_t> dirty;  // pages
    const std::uint64_t ss = config_.sector_size;
    const std::uint64_t per_page = config_.page_size / ss;
    std::uint64_t shortest = f.medium.size();  // a truncation since the sync: what follows is the cache's
    for (const disk_change& c : f.unsynced) {
      if (c.gone) continue;
      for (std::uint64_t s = c.first_sector; s < c.first_sector + c.sectors; ++s) dirty.insert(s / per_page);
      if (c.sectors == 0) shortest = std::min(shortest, c.size_after);
    }
    const std::uint64_t n = std::min({f.cache.size(), f.medium.size(), shortest / config_.page_size * config_.page_size});
    for (std::uint64_t s = 0; s * ss < n; ++s) {
      if (dirty.count(s / per_page) != 0) continue;
      const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(ss, n - s * ss));
      std::memcpy(f.cache.data() + s * ss, f.medium.data() + s * ss, k);
      if (f.bad.count(s) != 0) f.uncached.insert(s);
    }
  }
}

}  // namespace simasio::detail
