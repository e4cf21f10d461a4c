// simasio/random/tape.hpp — the choice tape: every seeded decision, stream by stream
#ifndef SIMASIO_RANDOM_TAPE_HPP
#define SIMASIO_RANDOM_TAPE_HPP

#include <simasio/error.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace simasio {

/// What a draw decides (the family of the stream it comes from).
enum class choice_purpose : std::uint8_t {
  scheduler = 0,  ///< which ready context runs next; equal-time event order
  network = 1,    ///< latency, loss, duplication, segment sizes
  user = 2,       ///< world::random() draws made by scenarios
  buggify = 3,    ///< simasio::buggify() site activation and firing
  disk = 4,       ///< simulated disks: latencies, faults, what a power cut keeps
  swarm = 5,      ///< swarm testing: the seed's fault mix, each host's drift
};

/// Number of purposes.
inline constexpr std::size_t choice_purpose_count = 6;

/// Short lower-case name of a purpose ("scheduler", "network", ...).
const char* to_string(choice_purpose) noexcept;

/// The purpose a stream key belongs to: the part before the first ':'
/// names it ("network:a->b" is a network stream). False for an unknown one.
bool purpose_of_stream(std::string_view key, choice_purpose& out) noexcept;

/// One recorded draw: its purpose, its bound, and the value in [0, bound).
struct choice {
  choice_purpose purpose = choice_purpose::scheduler;  ///< the family of the stream that drew it
  std::uint64_t bound = 0;                            ///< the draw was below this
  std::uint64_t value = 0;                            ///< what it drew, in [0, bound)
  /// Field-wise equality (and its negation).
  ///@{
  friend bool operator==(const choice& a, const choice& b) noexcept {
    return a.purpose == b.purpose && a.bound == b.bound && a.value == b.value;
  }
  friend bool operator!=(const choice& a, const choice& b) noexcept { return !(a == b); }
  ///@}
};

/// One stream's draws, in the order the stream made them.
///
/// A world draws from many independent streams, each with its own seed and
/// its own section of the tape, keyed by a stable name (host names, never
/// creation order):
///
/// | key                       | decides                                         |
/// |---------------------------|-------------------------------------------------|
/// | `scheduler`               | which context runs next; equal-time event order |
/// | `scheduler:<host>`        | that host's pool-context picks, notify_one      |
/// | `network:<from>-><to>`    | that directed link: latency, loss, duplication, TCP segment sizes, partial writes |
/// | `user`, `user:<name>`     | world::random(), world::random(name)            |
/// | `buggify:<site>`          | whether the site is on, and each time it fires  |
/// | `disk:<host>:<family>`    | that disk's latencies, faults, power-cut losses |
/// | `swarm`, `swarm:<host>`   | the fault mix (swarm testing), a host's drift   |
///
/// Zeroing or removing one draw therefore never moves a draw of another
/// stream: shrinking works even with background traffic.
struct tape_stream {
  std::string key;  ///< the stream's name; "" in a format-1 tape (every draw, in order)
  std::vector<choice> choices;  ///< the stream's draws, in order
  /// Field-wise equality (and its negation).
  ///@{
  friend bool operator==(const tape_stream& a, const tape_stream& b) { return a.key == b.key && a.choices == b.choices; }
  friend bool operator!=(const tape_stream& a, const tape_stream& b) { return !(a == b); }
  ///@}
};

/// A tape as saved: the seed it belongs to and each stream's draws, streams
/// in the order they first drew.
struct saved_tape {
  std::uint64_t seed = 0;            ///< the seed of the run that drew it
  std::vector<tape_stream> streams;  ///< each stream's section, in the order the streams first drew
  /// A format-1 tape: one positional stream (key "") answering every draw
  /// in order, whatever stream makes it, as simasio 0.x recorded them.
  bool positional = false;
  /// The scenario (check_options::name) whose run drew it, "" when unknown:
  /// a replay under another scenario's name is refused (SIMASIO_TAPE_MISMATCH
  /// other than fail turns that into a warning).
  std::string scenario{};

  /// Draws on the tape, all streams together.
  std::size_t size() const noexcept;
  /// Draws that deviate from the polite choice (value != 0).
  std::uint64_t deviations() const noexcept;
  /// The section of @p key, or null.
  const tape_stream* find(std::string_view key) const noexcept;
  /// Field-wise equality (and its negation).
  ///@{
  friend bool operator==(const saved_tape& a, const saved_tape& b) {
    return a.seed == b.seed && a.streams == b.streams && a.positional == b.positional && a.scenario == b.scenario;
  }
  friend bool operator!=(const saved_tape& a, const saved_tape& b) { return !(a == b); }
  ///@}
};

/// What replay does when the program asks for a draw its stream's section
/// does not hold at that position (the code changed since the tape was saved).
enum class tape_mismatch {
  fail,    ///< throw simasio::tape_error naming the stream and position (default)
  seeded,  ///< that stream stops following the tape and continues with its seed's draws
  polite,  ///< that stream answers 0 (the polite choice) from there on
  /// the draw takes the recorded value, clamped below its new bound, and
  /// the stream keeps following its section (a draw whose bound moved, such
  /// as what a power cut keeps of a longer journal, keeps its intent); used
  /// by shrinking
  adapt,
};

/// Records every draw of a world, or feeds recorded draws back, one section
/// per stream.
///
/// Counting is always on (choices(), deviations()); keeping the draws is on
/// only while recording, so sweeps pay one increment per draw.
class choice_tape {
 public:
  /// The number of the stream named @p key, opened on first use (streams
  /// number in first-use order). A stream opened while replaying follows
  /// its section of the tape; a stream the tape has no section for draws
  /// politely (0), as draws past the end of a section do.
  std::uint32_t open(std::string_view key, choice_purpose p);

  /// Writes the key of a stream opened with open_deferred, named by its
  /// @p token, to @p out.
  using key_writer = void (*)(const void* context, std::uint64_t token, std::string& out);
  /// Stream numbers with this bit were given by open_deferred while the
  /// tape kept no lanes; they stay valid after the stream gets its lane.
  static constexpr std::uint32_t deferred_bit = 0x80000000u;
  /// Like open(), for a stream whose key is made only when the tape needs
  /// it: at once while recording or replaying a tape, otherwise when one of
  /// them starts (the stream takes the next lane then, and keeps the number
  /// returned here) or key() asks. A world opens one stream per directed
  /// link it uses, thousands in a big world, and a sweep that keeps no tape
  /// only counts their draws.
  /// @param hash FNV-1a of the stream's key (key_hash() returns it).
  /// @param p the stream's purpose.
  /// @param write writes the key, given @p context and @p token.
  /// @param context passed to @p write; it must outlive every use of the
  /// tape after this call.
  /// @param token passed to @p write: which stream's key to write.
  /// @returns the stream's number: a lane's, or one with deferred_bit.
  std::uint32_t open_deferred(std::uint64_t hash, choice_purpose p, key_writer write, const void* context,
                              std::uint64_t token);

  /// Keep every draw from now on.
  void start_recording() {
    make_lanes();
    recording_ = true;
  }

  /// Answer draws from @p tape: each stream from its section, in order (a
  /// positional tape: every draw from its one section, in order). Past a
  /// section's end, draws are polite (0), which is how a shrunk tape ends.
  /// @param tape the tape to replay.
  /// @param on_mismatch what happens when the program asks for a draw that
  /// its stream's section does not hold at that position.
  /// @throws usage_error if @p tape is null.
  void start_replay(std::shared_ptr<const saved_tape> tape, tape_mismatch on_mismatch = tape_mismatch::fail);
  /// The same, over a copy of @p tape.
  void start_replay(saved_tape tape, tape_mismatch on_mismatch = tape_mismatch::fail) {
    start_replay(std::make_shared<const saved_tape>(std::move(tape)), on_mismatch);
  }

  /// Take draws from a fuzzer's bytes (world_options::fuzz_input): every
  /// draw, whatever its stream, in the order the program makes them, takes
  /// the next byte (a bound up to 256) or the next two (a larger bound) as
  /// the top of a fraction of its bound, in place of its stream's own draw;
  /// byte 0 is the polite choice, 255 the last value. Each stream still
  /// draws its own value first, so a later draw past the bytes' end is what
  /// the seed gives whatever the bytes said before.
  void start_fuzzing(std::shared_ptr<const std::vector<std::uint8_t>> bytes);

  /// True once start_recording() was called: every draw is kept.
  bool recording() const noexcept { return recording_; }
  /// True while draws come from somewhere other than the seed alone (a tape, a fuzzer's bytes).
  bool replaying() const noexcept { return replay_ != nullptr || fuzz_ != nullptr; }

  /// Notes a freshly drawn value of stream @p s.
  void note(std::uint32_t s, std::uint64_t bound, std::uint64_t value) {
    ++choices_;
    if (value != 0) ++deviations_;
    if (recording_) {
      lane& l = lanes_[lane_of(s)];
      l.drawn.push_back(choice{l.purpose, bound, value});
    }
  }

  /// Returns the tape's next value for a draw of stream @p s below @p
  /// bound; @p fresh draws from the stream's seed when the policy says so.
  template <class Fresh>
  std::uint64_t replay(std::uint32_t s, std::uint64_t bound, Fresh&& fresh) {
    if (fuzz_ != nullptr) return fuzzed(s, bound, fresh());
    s = lane_of(s);
    std::uint64_t v = 0;
    const std::uint32_t src = lanes_[s].source;
    if (src != no_source) {
      source& from = sources_[src];
      if (from.cursor < from.choices->size()) {
        const choice& c = (*from.choices)[from.cursor];
        if (c.purpose == lanes_[s].purpose && (c.bound == bound || mismatch_ == tape_mismatch::adapt)) {
          v = c.value < bound ? c.value : bound - 1;
          ++from.cursor;
        } else {
          v = diverge(s, bound, fresh);
        }
      } else if (from.seeded) {
        v = fresh();
      }
    }
    note(s, bound, v);
    return v;
  }

  /// Draws made so far (whatever the mode).
  std::uint64_t choices() const noexcept { return choices_; }
  /// Draws whose value was not the polite 0.
  std::uint64_t deviations() const noexcept { return deviations_; }
  /// The recorded draws (nothing unless recording): every stream that drew,
  /// in first-use order, with @p seed.
  saved_tape recorded(std::uint64_t seed = 0) const;
  /// Streams opened so far.
  std::size_t streams() const noexcept { return lanes_.size() + (deferred_.size() - made_); }
  /// The key of stream @p s.
  std::string key(std::uint32_t s) const;
  /// FNV-1a of the key of stream @p s (what its seed is derived from).
  std::uint64_t key_hash(std::uint32_t s) const {
    return (s & deferred_bit) != 0 ? deferred_.at(s & ~deferred_bit).hash : lanes_.at(s).hash;
  }
  /// True once some stream left its section because it no longer fitted.
  bool diverged() const noexcept { return diverged_; }

 private:
  static constexpr std::uint32_t no_source = 0xFFFFFFFFu;
  struct lane {
    std::uint64_t hash = 0;  // name_hash(key): its place in index_, and its seed (world_core::stream)
    std::size_t key_at = 0;  // its key: names_[key_at, key_at + key_size)
    std::size_t key_size = 0;
    choice_purpose purpose = choice_purpose::scheduler;
    std::uint32_t source = no_source;  // the section it follows while replaying
    std::vector<choice> drawn;         // while recording
  };
  struct source {
    const std::vector<choice>* choices = nullptr;
    std::size_t cursor = 0;
    bool seeded = false;  // left the section under tape_mismatch::seeded
  };

  // A stream of open_deferred: its lane is made when the tape needs one.
  struct deferred {
    std::uint64_t hash;
    std::uint64_t token;
    key_writer write;
    const void* context;
    choice_purpose purpose;
    std::uint32_t lane;  // no_source until made
  };
  // The lane of stream s (for a deferred one, made by make_lanes before
  // anything asks: recording and replay start with it).
  std::uint32_t lane_of(std::uint32_t s) const noexcept {
    return (s & deferred_bit) != 0 ? deferred_[s & ~deferred_bit].lane : s;
  }
  // Gives every deferred stream without one its lane, in the order they were opened.
  void make_lanes();

  std::string_view key_of(const lane& l) const noexcept { return {names_.data() + l.key_at, l.key_size}; }
  void link(lane& l);
  // Open addressing on a key's hash, for the streams (index_) and the
  // replayed tape's sections (sections_), at most half full: a slot holds
  // the hash's low 32 bits above the entry's number + 1 (0: empty), so a
  // probe reads an entry only when its bits match, and growing never does.
  static std::size_t slot_of(std::uint64_t hash, std::size_t mask) noexcept {
    return static_cast<std::uint32_t>(hash) & mask;
  }
  static std::uint64_t slot_value(std::uint64_t hash, std::uint32_t entry) noexcept {
    return (std::uint64_t{static_cast<std::uint32_t>(hash)} << 32) | (std::uint64_t{entry} + 1);
  }
  static void place(std::vector<std::uint64_t>& slots, std::uint64_t value) noexcept;
  static void grow(std::vector<std::uint64_t>& slots);
  // The first of streams with this key, by sections (their index), or no_source.
  static std::uint32_t find_section(const std::vector<std::uint64_t>& sections,
                                    const std::vector<tape_stream>& streams, std::string_view key,
                                    std::uint64_t hash) noexcept;
  template <class Fresh>
  std::uint64_t diverge(std::uint32_t s, std::uint64_t bound, Fresh& fresh) {
    if (mismatch_ == tape_mismatch::fail) throw_mismatch(s, bound);
    diverged_ = true;
    source& from = sources_[lanes_[s].source];
    from.cursor = from.choices->size();  // leave the section for good
    from.seeded = mismatch_ == tape_mismatch::seeded;
    return from.seeded ? fresh() : 0;
  }
  [[noreturn]] void throw_mismatch(std::uint32_t s, std::uint64_t bound) const;
  std::uint64_t fuzzed(std::uint32_t s, std::uint64_t bound, std::uint64_t drawn);

  std::vector<lane> lanes_;
  // Every stream's key, one after another: a world with a thousand hosts
  // opens tens of thousands of link streams, and a string of its own each
  // was an allocation per stream.
  std::string names_;
  // Streams by key (slot_value of each stream's number). A world with a
  // thousand hosts opens a stream per directed link it uses, often one per
  // datagram: a tree of strings cost a cache miss per level, and slots
  // without the hash a miss per probe.
  std::vector<std::uint64_t> index_;
  std::vector<deferred> deferred_;  // open_deferred's streams, by number
  std::size_t made_ = 0;            // deferred_[0, made_) have their lanes
  std::shared_ptr<const saved_tape> replay_;
  std::vector<source> sources_;  // one per section of replay_
  // replay_'s sections by key (slot_value of each section's number; the
  // first of equal keys): a stream finds its section without a scan, which
  // over a thousand hosts' links made a replay 60 times its recording.
  std::vector<std::uint64_t> sections_;
  std::shared_ptr<const std::vector<std::uint8_t>> fuzz_;  // start_fuzzing
  std::size_t fuzz_cursor_ = 0;
  std::uint64_t choices_ = 0;
  std::uint64_t deviations_ = 0;
  tape_mismatch mismatch_ = tape_mismatch::fail;
  bool recording_ = false;
  bool diverged_ = false;
};

}  // namespace simasio

#endif  // SIMASIO_RANDOM_TAPE_HPP
