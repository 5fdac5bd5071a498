// What `check`, `nodes` and `plot` share at their edges: standard streams, messages, arguments.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace nodescope::cli {

// Exit status of check, nodes and plot when the input cannot be read or the output written.
constexpr int kCannotReadOrWrite = 2;

// Makes a closed standard stream (0, 1 or 2) a descriptor that fails every write (and read), so
// that no file this program opens takes its number and a write to it is reported, not lost.
void GuardStandardStreams();

// "nodescope COMMAND: MESSAGE" on stderr, with the message escaped for a terminal: messages
// carry paths and bytes of traces.
void PrintError(std::string_view command, std::string_view message);

// Writes `text` to stdout and flushes it. On failure (a full disk, a closed pipe, a closed
// stdout) says so on stderr and returns false.
bool WriteStdout(std::string_view command, std::string_view text);

// The path to open for a trace argument: "-" is standard input.
std::string TracePath(const std::string& argument);

// Rejects "-1" and other negative values, which CLI11 would wrap around to a huge unsigned one.
CLI::Validator NotNegative();
// Rejects "", which would otherwise name no file at all (or be ignored).
CLI::Validator NotEmpty();

}  // namespace nodescope::cli
