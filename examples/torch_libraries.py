"""Work that goes through NVIDIA's libraries which may use NVTX themselves — cuDNN (convolution),
cuBLAS / cuBLASLt (matmul), cuFFT, cuSPARSE, cuSOLVER — in one small torch program. Exits 0 when
every result is finite.

    nodescope run -o libs.json -- python3 examples/torch_libraries.py
"""
import torch


def main():
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    x = torch.randn(8, 16, 64, 64, device=dev)
    conv = torch.nn.Conv2d(16, 32, 3, padding=1).to(dev)
    a = torch.randn(512, 512, device=dev)
    results = []
    for _ in range(3):
        results.append(conv(x).sum())                                    # cuDNN
        results.append((a @ a).sum())                                    # cuBLAS
        results.append(torch.nn.functional.linear(a.half(), a.half()).float().sum())  # cuBLASLt
        results.append(torch.fft.rfft2(x).abs().sum())                   # cuFFT
        results.append(torch.sparse.mm(a.to_sparse(), a).sum())          # cuSPARSE
        results.append(torch.linalg.inv(a + 512 * torch.eye(512, device=dev)).sum())  # cuSOLVER
    torch.cuda.synchronize()
    ok = all(bool(torch.isfinite(r)) for r in results)
    print(f"cuDNN, cuBLAS, cuBLASLt, cuFFT, cuSPARSE, cuSOLVER: {'ok' if ok else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
