/// The flags `ordo generate` and `ordo chat` share: --backend, the sampler (--temp, --top-k,
/// --top-p, --min-p, --seed) and --stop. Ranges are checked by the parser with short messages
/// naming the flag; --backend is resolved after parsing (an unknown name or a backend this build
/// lacks is a usage error, exit 2).
#pragma once
#include <CLI/CLI.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "eval/backend_selection.hpp"
#include "generate/generate.hpp"
#include "ordo/ops/sampling/problem.hpp"

namespace ordo::app {

/// Validator: a float for which `inside` holds, else "must be a number <range>" (short, unlike
/// CLI::Range's message with the limits printed in full).
template <class Inside>
CLI::Validator number_in(const std::string& range, Inside inside) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        float v = 0;
        std::size_t used = 0;
        try {
          v = std::stof(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        return used == text.size() && used > 0 && inside(v) ? std::string() : "must be a number " + range;
      },
      "");
}

inline void add_backend_flag(CLI::App& cli, std::string& backend) {
  cli.add_option("--backend", backend, eval::backend_help());
}

/// Throws usage_error naming --backend unless `backend` is auto or a backend this build has.
inline void check_backend_flag(const std::string& backend) {
  try {
    (void)eval::choose_backend(backend);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
}

inline void add_sampling_flags(CLI::App& cli, ops::sampling::settings& sp) {
  cli.add_option("--temp", sp.temperature, "sampling temperature; 0: greedy (default 0)")
      ->check(number_in(">= 0", [](float v) { return v >= 0.0f && v <= 3.4e38f; }));
  cli.add_option("--top-k", sp.top_k, "keep the k most likely tokens; 0: off (default 0)")->check(integer_at_least(0));
  cli.add_option("--top-p", sp.top_p,
                 "keep the most likely tokens up to this probability mass, in (0, 1]; 1: off (default 1)")
      ->check(number_in("in (0, 1]", [](float v) { return v > 0.0f && v <= 1.0f; }));
  cli.add_option("--min-p", sp.min_p,
                 "drop tokens below min-p times the most likely one's probability, in [0, 1]; 0: off (default 0)")
      ->check(number_in("in [0, 1]", [](float v) { return v >= 0.0f && v <= 1.0f; }));
  cli.add_option("--seed", sp.seed, "sampler seed (default 0); with a token's position it decides every draw");
}

/// --spec, --spec-width, --spec-margin (generate, chat, eval) and --mtp (the ds4 MTP sidecar).
/// Width "auto" is 0 (the adaptive width, runtime/speculative.hpp).
struct spec_flags {
  std::string width = "auto";
};
inline void add_spec_flags(CLI::App& cli, generate::speculation& s, spec_flags& f, std::filesystem::path* mtp_model) {
  cli.add_option("--spec", s.mode,
                 "speculative decoding: mtp (the model's MTP block drafts, the target verifies; output byte-identical "
                 "to off), off, or auto: mtp when the model has an MTP block and the backend speculates (default auto)")
      ->check(CLI::IsMember({"mtp", "off", "auto"}));
  cli.add_option("--spec-width", f.width,
                 "drafts per round, 1..5, or auto: adaptive (backs off to the accepted prefix after a rejection, probes "
                 "one wider after a full accept; default auto)")
      ->check([](const std::string& v) {
        return v == "auto" || (v.size() == 1 && v[0] >= '1' && v[0] <= '5') ? std::string() : std::string("must be 1..5 or auto");
      });
  cli.add_option("--spec-margin", s.margin,
                 "end a draft chain at a draft whose MTP top-2 logit margin is below X (shapes rounds only, never the "
                 "output; default 0: off)")
      ->check(number_in(">= 0", [](float v) { return v >= 0.0f && v <= 3.4e38f; }));
  if (mtp_model)
    cli.add_option("--mtp", *mtp_model, "antirez/ds4 MTP sidecar GGUF (mtp.0.*) for -m (the default model brings its own)")
        ->check(CLI::ExistingFile);
}
inline void finish_spec_flags(generate::speculation& s, const spec_flags& f) {
  s.width = f.width == "auto" ? 0 : std::stoi(f.width);
}

/// `\n`, `\t`, `\\` in a --stop value become a newline, a tab, a backslash (a shell passes them
/// literally); any other backslash stays.
inline std::string unescape_stop(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == 'n' || s[i + 1] == 't' || s[i + 1] == '\\')) {
      out += s[i + 1] == 'n' ? '\n' : s[i + 1] == 't' ? '\t' : '\\';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// --stop S, repeatable (one string per flag); call unescape_stops after parsing.
inline void add_stop_flag(CLI::App& cli, std::vector<std::string>& stops) {
  cli.add_option("--stop", stops,
                 "stop when the text contains S (repeatable; \\n, \\t, \\\\ are unescaped); the stop string is not shown")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

inline void unescape_stops(std::vector<std::string>& stops) {
  for (auto& s : stops) {
    s = unescape_stop(s);
    if (s.empty()) throw usage_error("--stop: an empty stop string would stop before any text");
  }
}

}  // namespace ordo::app
