package dev.cadre.platform.runs;

import dev.cadre.platform.support.PlatformTest;

/** {@link RollupsContract} on the embedded default (H2). */
@PlatformTest
class RollupsTest extends RollupsContract {}
