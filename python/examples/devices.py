"""torch.cuda.is_available() and tf.config.list_physical_devices('GPU'): which backends and
devices there are, and which one this program runs on."""
import porta

for b in porta.backends():
    state = "loaded" if b.loaded else ("built, not loaded" if b.built else "not built")
    print(f"{b.backend:7s} {state}: {b.device_count} devices {b.reason}")
gpus = [d for d in porta.devices() if d.kind == "gpu"]
print("GPU available:", bool(gpus))
for d in porta.devices():
    print(f"  {d.spec:10s} {d.kind:4s} {d.name} ({d.memory_bytes >> 20} MiB; matmul: {d.matmul_path})")
print("default device:", porta.default_device())
assert porta.devices() and porta.default_device() in porta.devices()
