// Small text helpers shared by the parsers of list-valued settings.
#pragma once

#include <string_view>
#include <vector>

namespace outrider {

// "a, b,c" -> {"a", "b", "c"}: one item per `sep`-separated field, spaces trimmed at both ends.
// Empty fields stay (as empty items), and an empty text is one empty item: callers decide what
// an empty list or item means.
inline std::vector<std::string_view> SplitList(std::string_view text, char sep = ',') {
  std::vector<std::string_view> items;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(sep, pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    items.push_back(item);
    pos = end + 1;
  }
  return items;
}

}  // namespace outrider
