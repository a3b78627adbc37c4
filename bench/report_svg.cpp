// porta-bench's SVG chart (render_svg in report.hpp): one panel per kind of figure, each on a
// scale of its own, so that a tensor-core GEMM at 1100% of the float32 FMA peak does not squash
// every bandwidth bar into a corner. Bandwidths are drawn as shares of their device's copy
// ceiling (linear, 100% marked); GEMMs in TFLOP/s; host times and rates in their own units. A
// panel whose figures span more than kLogSpan is drawn on a log axis (PoCL's 0.05 TFLOP/s next
// to an H200's 647), and its heading says so.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report.hpp"

namespace porta_bench {
namespace {

constexpr double kLogSpan = 30;  // largest / smallest value of a panel above which its axis is log

std::string xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A figure as the chart prints it: three significant digits and the unit (up to its comma).
std::string short_value(double v, const std::string& unit) {
  char buf[48];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3g", v);
  std::string u = unit.substr(0, unit.find(','));
  return u.empty() ? std::string(buf) : std::string(buf) + " " + u;
}

std::string decade(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string percent(double f) { return std::to_string(static_cast<long>(std::lround(100 * f))) + "%"; }

// A tick step: the smallest of 1, 2, 2.5, 5 times a power of ten that is at least `v`.
double nice_step(double v) {
  if (!(v > 0)) return 1;
  double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= v * (1 - 1e-12)) return m * p;
  return 10 * p;
}

// Where a value lies on a panel's axis, 0 at its left end and 1 at its right.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // log: powers of ten
  double step = 0.25;     // linear: between ticks
  double at(double v) const {
    if (!log) return std::clamp(v / hi, 0.0, 1.0);
    if (!(v > 0)) return 0;
    return std::clamp((std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)), 0.0, 1.0);
  }
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      for (double v = lo; v <= hi * 1.0001; v *= 10) t.push_back(v);
      return t;
    }
    const long n = std::lround(hi / step);
    for (long i = 0; i <= n; ++i) t.push_back(step * static_cast<double>(i));
    return t;
  }
};

// A linear axis from 0 (holding at least `at_least`), or, where `may_log`, a log one over whole
// decades when the positive values span more than kLogSpan.
Axis choose_axis(const std::vector<double>& values, double at_least, bool may_log) {
  double top = 0, bottom = 0;
  for (double v : values)
    if (std::isfinite(v) && v > 0) {
      top = std::max(top, v);
      bottom = bottom > 0 ? std::min(bottom, v) : v;
    }
  Axis a;
  if (may_log && top > 0 && bottom > 0 && top / bottom > kLogSpan) {
    a.log = true;
    a.lo = std::pow(10.0, std::floor(std::log10(bottom)));
    a.hi = std::pow(10.0, std::ceil(std::log10(top)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    return a;
  }
  // Four to eight ticks, the last one just above the largest figure.
  top = std::max(top, at_least);
  a.step = nice_step(top / 5);
  a.hi = std::max(a.step, std::ceil(top / a.step * (1 - 1e-12)) * a.step);
  return a;
}

}  // namespace

std::string render_svg(const Report& r, const std::string& title) {
  static const char* kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f"};
  auto colour = [&](std::size_t s) -> std::string {
    if (r.series[s].rfind("pool over all", 0) == 0) return "#7f7f7f";
    return kColours[s % (sizeof kColours / sizeof *kColours)];
  };
  constexpr double kLeft = 20, kLabel = 330, kBars = 500, kText = 190, kWidth = kLeft + kLabel + kBars + kText + 20;
  constexpr double kBar = 11, kGap = 2, kGroupGap = 9;
  std::ostringstream body;
  double y = 34;
  body << "<text x=\"" << kLeft << "\" y=\"" << y << "\" font-size=\"16\" font-weight=\"bold\">" << xml(title) << "</text>\n";
  y += 22;
  // Legend: one swatch a series.
  double x = kLeft;
  for (std::size_t s = 0; s < r.series.size(); ++s) {
    double w = 26 + 7.0 * static_cast<double>(r.series[s].size());
    if (x + w > kWidth - 20) x = kLeft, y += 18;
    body << "<rect x=\"" << num(x) << "\" y=\"" << num(y - 10) << "\" width=\"12\" height=\"12\" fill=\"" << colour(s) << "\"/>"
         << "<text x=\"" << num(x + 16) << "\" y=\"" << num(y) << "\" font-size=\"12\">" << xml(r.series[s]) << "</text>\n";
    x += w;
  }
  y += 14;

  // What a panel draws of a row: the bar's length (in the panel's scale) and its text.
  struct Figure {
    double value;
    std::string text;
  };
  using Pick = Figure (*)(const ChartRow&, std::size_t);

  // One panel: a heading, an axis, and a bar group per row.
  // A percent axis (shares of a ceiling) is always linear.
  auto panel = [&](std::string heading, const std::vector<const ChartRow*>& rows, Pick pick, bool percent_axis,
                   double at_least) {
    if (rows.empty()) return;
    std::vector<double> all;
    for (auto* row : rows)
      for (std::size_t s = 0; s < r.series.size(); ++s) all.push_back(pick(*row, s).value);
    const Axis axis = choose_axis(all, at_least, !percent_axis);
    if (axis.log) heading += " (log scale)";
    y += 18;
    body << "<text x=\"" << kLeft << "\" y=\"" << num(y) << "\" font-size=\"14\" font-weight=\"bold\">" << xml(heading) << "</text>\n";
    y += 8;
    const double x0 = kLeft + kLabel, y_axis = y;
    std::ostringstream bars;
    for (auto* row : rows) {
      y += kGroupGap;
      const double group_top = y;
      int drawn = 0;
      for (std::size_t s = 0; s < r.series.size(); ++s) {
        Figure f = pick(*row, s);
        if (!std::isfinite(f.value)) continue;
        double w = std::max(0.5, kBars * axis.at(f.value));
        bars << "<rect x=\"" << num(x0) << "\" y=\"" << num(y) << "\" width=\"" << num(w) << "\" height=\"" << kBar
             << "\" fill=\"" << colour(s) << "\"><title>" << xml(r.series[s] + ": " + row->label + " " + f.text)
             << "</title></rect>"
             << "<text x=\"" << num(x0 + w + 4) << "\" y=\"" << num(y + kBar - 2) << "\" font-size=\"10\">" << xml(f.text)
             << "</text>\n";
        y += kBar + kGap;
        ++drawn;
      }
      if (!drawn) y += kBar;
      // About 50 characters fit the label column; a longer label is cut, whole in its tooltip.
      std::string shown = row->label.size() > 50 ? row->label.substr(0, 47) + "..." : row->label;
      bars << "<text x=\"" << num(x0 - 8) << "\" y=\"" << num(group_top + 10) << "\" font-size=\"12\" text-anchor=\"end\">"
           << "<title>" << xml(row->label) << "</title>" << xml(shown) << "</text>\n";
    }
    // Grid lines and ticks, under the bars.
    bool first = true;
    for (double v : axis.ticks()) {
      double gx = x0 + kBars * axis.at(v);
      body << "<line x1=\"" << num(gx) << "\" y1=\"" << num(y_axis) << "\" x2=\"" << num(gx) << "\" y2=\"" << num(y + 4)
           << "\" stroke=\"" << (first ? "#444444" : "#dddddd") << "\"/>"
           << "<text x=\"" << num(gx) << "\" y=\"" << num(y + 16) << "\" font-size=\"10\" text-anchor=\"middle\">"
           << xml(percent_axis ? percent(v) : axis.log ? decade(v) : short_value(v, "")) << "</text>\n";
      first = false;
    }
    if (percent_axis && axis.at(1.0) < 1) {  // the ceiling itself
      double cx = x0 + kBars * axis.at(1.0);
      body << "<line x1=\"" << num(cx) << "\" y1=\"" << num(y_axis) << "\" x2=\"" << num(cx) << "\" y2=\"" << num(y + 4)
           << "\" stroke=\"#444444\" stroke-dasharray=\"4 3\"/>\n";
    }
    body << bars.str();
    y += 22;
  };

  auto has_fraction = [](const ChartRow& row) {
    return std::any_of(row.fractions.begin(), row.fractions.end(), [](double f) { return std::isfinite(f); });
  };
  auto is_gemm = [](const ChartRow& row) { return row.unit == "TFLOP/s"; };
  // Bandwidths with a ceiling: their share of it. GEMMs: TFLOP/s, whatever the dtype, with the
  // share of the dtype's FMA peak in the text. The rest: one panel per unit.
  std::vector<const ChartRow*> bandwidth, gemm;
  std::vector<std::string> units;
  for (auto& row : r.chart) {
    if (is_gemm(row)) gemm.push_back(&row);
    else if (has_fraction(row)) bandwidth.push_back(&row);
    else if (std::find(units.begin(), units.end(), row.unit) == units.end()) units.push_back(row.unit);
  }
  panel("Bandwidth: share of each device's copy ceiling", bandwidth,
        [](const ChartRow& row, std::size_t s) {
          double f = row.fractions[s];
          return Figure{f, std::isfinite(f) ? percent(f) + " (" + short_value(row.values[s], row.unit) + ")" : ""};
        },
        true, 1.0);
  panel("Matmul: TFLOP/s (in brackets: share of the dtype's FMA-chain peak, which tensor cores exceed)", gemm,
        [](const ChartRow& row, std::size_t s) {
          double v = row.values[s], f = row.fractions[s];
          std::string text = std::isfinite(v) ? short_value(v, row.unit) : "";
          if (std::isfinite(v) && std::isfinite(f)) text += " (" + percent(f) + ")";
          return Figure{v, text};
        },
        false, 0);
  for (auto& unit : units) {
    std::vector<const ChartRow*> rows;
    bool lower = false;
    for (auto& row : r.chart)
      if (row.unit == unit && !is_gemm(row) && !has_fraction(row)) {
        rows.push_back(&row);
        lower = !row.higher_is_better;
      }
    panel(unit + (lower ? " (lower is better)" : " (higher is better)"), rows,
          [](const ChartRow& row, std::size_t s) {
            double v = row.values[s];
            return Figure{v, std::isfinite(v) ? short_value(v, row.unit) : ""};
          },
          false, 0);
  }
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(kWidth) << "\" height=\"" << num(y + 10) << "\" viewBox=\"0 0 "
    << num(kWidth) << " " << num(y + 10) << "\" font-family=\"Helvetica, Arial, sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << body.str() << "</svg>\n";
  return o.str();
}

}  // namespace porta_bench
