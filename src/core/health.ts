// Health and feature registries: components report their own state; system.health and
// system.capabilities read it. The worst component status is the hub's status.
import type { Feature, FeatureRegistry, HealthCheck, HealthRegistry, HealthStatus } from './context.ts';

const RANK: Record<HealthStatus, number> = { healthy: 0, degraded: 1, unhealthy: 2 };

export class Health implements HealthRegistry {
  private readonly checks = new Map<string, () => HealthCheck | Promise<HealthCheck>>();

  register(name: string, check: () => HealthCheck | Promise<HealthCheck>): void {
    this.checks.set(name, check);
  }

  async run(): Promise<{ status: HealthStatus; services: Record<string, HealthCheck> }> {
    const services: Record<string, HealthCheck> = {};
    let status: HealthStatus = 'healthy';
    for (const [name, check] of this.checks) {
      let result: HealthCheck;
      try {
        result = await check();
      } catch (err) {
        result = { status: 'unhealthy', detail: (err as Error).message };
      }
      services[name] = result;
      if (RANK[result.status] > RANK[status]) status = result.status;
    }
    return { status, services };
  }
}

export class Features implements FeatureRegistry {
  private readonly features = new Map<string, Feature>();
  set(feature: Feature): void {
    this.features.set(feature.name, feature);
  }
  list(): Feature[] {
    return [...this.features.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
