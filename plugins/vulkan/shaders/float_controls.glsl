// With -DFLOAT_CONTROLS (used only on devices that support it): keep subnormals and the IEEE
// meaning of signed zeros, infinities and NaN, so results match the CPU bit for bit. With
// -DIEEE_SPECIALS: only the latter, for devices that cannot keep subnormals (NVIDIA): without
// it their compilers assume no inf or NaN, and x / 0 gives NaN.
#if defined(FLOAT_CONTROLS) || defined(IEEE_SPECIALS)
#extension GL_EXT_spirv_intrinsics : require
#endif
// Capabilities DenormPreserve (4464) and SignedZeroInfNanPreserve (4466); execution modes
// DenormPreserve (4459) and SignedZeroInfNanPreserve (4461) for the width in FC_WIDTH.
#if defined(FLOAT_CONTROLS)
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, FC_WIDTH);
#endif
#if defined(FLOAT_CONTROLS) || defined(IEEE_SPECIALS)
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4466], 4461, FC_WIDTH);
#endif
// -DFC_ALSO_64: the same modes for f64 as well (shaders that compute f32 results in f64).
#if defined(FLOAT_CONTROLS) && defined(FC_ALSO_64)
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 64);
#endif
#if (defined(FLOAT_CONTROLS) || defined(IEEE_SPECIALS)) && defined(FC_ALSO_64)
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4466], 4461, 64);
#endif
