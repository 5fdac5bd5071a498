// Reads "device stream start_ns end_ns" lines and prints DeviceSpanPads for them, one a line
// (the writer's widening, for widen_spans.py). See docs/viewers.md.
#include <iostream>
#include <vector>
#include "attribution/annotations.h"
int main() {
  std::vector<nodescope::DeviceSpan> spans;
  nodescope::DeviceSpan s{};
  while (std::cin >> s.device >> s.stream >> s.start_ns >> s.end_ns) spans.push_back(s);
  for (uint32_t p : nodescope::DeviceSpanPads(spans)) std::cout << p << "\n";
}
