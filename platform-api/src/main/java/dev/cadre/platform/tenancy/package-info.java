/**
 * Teams as tenants: the team a request acts in ({@link dev.cadre.platform.tenancy.TeamScope}), the
 * teams themselves ({@code cadre_team}), and the rules that keep one team's objects from another.
 */
@NullMarked
package dev.cadre.platform.tenancy;

import org.jspecify.annotations.NullMarked;
