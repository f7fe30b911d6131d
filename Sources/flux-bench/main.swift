print("flux-bench")
