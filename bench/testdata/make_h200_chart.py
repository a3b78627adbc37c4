# Writes h200_chart.json beside this file: a porta-bench JSON (porta_summary's series and chart
# only) with the H200 figures of the results table the README had (now bench/results/2026-11-29-h200.json) and shared/GPU.md (2026-12-01), for
# bench.svg_scales, which checks the chart's layout at those scales. The FMA-chain peaks (58.5 and
# 33.5 TFLOP/s) are round stand-ins; they only set the shares in brackets.
import json, os
N = None
series = ["cuda:0", "opencl:1", "CuPy", "PyTorch", "pool over all (2 devices)"]
copy = [3951, 3937, 4187, None]
f32 = [58.5, 58.5, None, 58.5]; f64 = [33.5, 33.5, None, 33.5]
rows = []
def bw(id, label, vals):
    fr = [v / c if v is not None and c else None for v, c in zip(vals, copy)]
    rows.append(dict(id=id, label=label, unit="GB/s", higher_is_better=True, values=vals + [N], fractions=fr + [N]))
def mm(id, label, vals, peak):
    fr = [v / p if v is not None and p else None for v, p in zip(vals, peak)]
    rows.append(dict(id=id, label=label, unit="TFLOP/s", higher_is_better=True, values=vals + [N], fractions=fr + [N]))
def host(id, label, unit, hib, vals):
    rows.append(dict(id=id, label=label, unit=unit, higher_is_better=hib, values=vals, fractions=[N] * 5))
bw("copy", "copy (x.copy())", [3951, 3937, 4187, N])
bw("add", "add x + y", [4109, 4077, 2521, N])
bw("saxpy", "saxpy a*x + y", [4128, 4076, 2520, 4315])
bw("fused", "fused a*x*x + b*x + c*exp(-y)", [4172, 4086, 2508, 4111])
bw("add_broadcast", "broadcast add (matrix + row)", [3673, 3606, 1679, 2807])
bw("add_strided", "strided add (transpose + matrix)", [3712, 3706, N, N])
bw("ref_saxpy", "hand-written saxpy (best launch)", [4193, 4115, N, N])
bw("sum", "sum (whole array)", [4144, 3144, 4266, 4135])
bw("argmax", "argmax (whole array)", [2197, 2000, 3852, 3652])
bw("uniform", "random::uniform float32", [1602, 1500, 471, 2415])
mm("matmul_f32/8192", "matmul float32 8192", [51.2, 46.3, N, 50.5], f32)
mm("matmul_tf32/8192", "matmul float32 as TF32 8192", [375, N, N, 375], f32)
mm("matmul_f64/8192", "matmul float64 8192", [61.3, 44.7, N, 62.4], f64)
mm("matmul_f16/8192", "matmul float16 8192", [647, 32.0, N, 632.8], f32)
mm("matmul_bf16/8192", "matmul bfloat16 8192", [674.6, 31.0, N, 643.4], f32)
mm("matmul_f32_clblast/8192", "matmul float32, CLBlast called directly 8192", [N, 33.3, N, N], f32)
host("small_add", "small add (1024 floats, eval each)", "us/op, host", False, [4.14, 5.04, 11.0, 8.2, N])
host("small_native_add", "bare launch loop, clEnqueueNDRangeKernel / cuLaunchKernel", "us/op, host", False, [2.96, 4.5, N, N, N])
host("small_add_threads/1", "small adds from 1 thread", "kops/s, host", True, [271, 167, 116, 110, N])
host("small_add_threads/4", "small adds from 4 threads", "kops/s, host", True, [563, 102, 66, 159, N])
host("pool", "DevicePool, this device alone (fused + sum tasks)", "tasks/s, host", True, [74175, 16000, N, N, N])
host("pool_all", "DevicePool over all the devices", "tasks/s, host", True, [N, N, N, N, 14080])
json.dump({"context": {}, "benchmarks": [], "porta_summary": {"series": series, "chart": rows}}, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "h200_chart.json"), "w"), indent=1)
